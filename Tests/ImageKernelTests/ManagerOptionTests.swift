import Foundation
import ImageKernel
import Testing

@Suite("Image options")
struct ManagerOptionTests {
    @Test func imageOptionsMapToLoaderOptions() {
        let all: ImageOptions = [.lowPriority, .highPriority, .progressiveLoad, .handleCookies, .allowInvalidSSLCertificates, .scaleDownLargeImages, .avoidDecode]
        let mapped = LoaderOptions(all, hasCachedImage: false)
        #expect(mapped == [.lowPriority, .highPriority, .progressiveLoad, .handleCookies, .allowInvalidSSLCertificates, .scaleDownLargeImages, .avoidDecode])
        #expect(LoaderOptions([.refreshCached, .progressiveLoad], hasCachedImage: false) == [.useCachedResponse, .progressiveLoad])
        #expect(LoaderOptions([.refreshCached, .progressiveLoad], hasCachedImage: true) == [.useCachedResponse, .ignoreCachedResponse],
                "refreshCached with a cached image: progressive off, cached responses ignored")
        #expect(LoaderOptions([.retryFailed, .cacheMemoryOnly, .fromCacheOnly, .fromLoaderOnly], hasCachedImage: true) == [])
    }

    @Test(arguments: [ImageOptions.lowPriority, .highPriority, .handleCookies, .allowInvalidSSLCertificates, .scaleDownLargeImages])
    func loaderSeesMappedOption(_ option: ImageOptions) async throws {
        let loader = MemoryLoader()
        loader.serve("a", data: RawCoder.data(width: 1, height: 1))
        let manager = makeManager(loader: loader)
        _ = try await manager.image(for: memURL("a"), options: option)
        #expect(loader.lastOptions.withLock { $0 } == LoaderOptions(option, hasCachedImage: false))
    }

    @Test func scaleDownLargeImagesReachesTheCoder() async throws {
        let loader = MemoryLoader()
        loader.serve("a", data: RawCoder.data(width: 1, height: 1))
        let coder = RawCoder()
        let manager = makeManager(loader: loader, coder: coder)
        _ = try await manager.image(for: memURL("a"), options: [.scaleDownLargeImages, .decodeFirstFrameOnly])
        let options = coder.lastOptions.withLock { $0 }
        #expect(options?.scaleDownLargeImages == true)
        #expect(options?.firstFrameOnly == true)
    }

    @Test func theScaleDownCeilingReachesTheCoderFromTheConfigurationOrTheContext() async throws {
        let loader = MemoryLoader()
        loader.serve("a", data: RawCoder.data(width: 1, height: 1))
        let coder = RawCoder()
        let manager = ImageManager(configuration: .init(
            loaders: LoaderRegistry([loader]), coders: CoderRegistry([coder]), pixelLimit: 1_000, scaleDownSourcePixelLimit: 5_000))
        _ = try await manager.image(for: memURL("a"), options: .scaleDownLargeImages)
        #expect(coder.lastOptions.withLock { $0 }?.effectiveScaleDownSourcePixelLimit == 5_000)
        var context = ImageContext()
        context.scaleDownSourcePixelLimit = 2_000
        _ = try await manager.image(for: memURL("a"), options: [.scaleDownLargeImages, .fromLoaderOnly], context: context)
        #expect(coder.lastOptions.withLock { $0 }?.scaleDownSourcePixelLimit == 2_000)
        let plain = ImageManager(configuration: .init(loaders: LoaderRegistry([loader]), coders: CoderRegistry([coder]), pixelLimit: 1_000))
        _ = try await plain.image(for: memURL("a"), options: .scaleDownLargeImages)
        #expect(coder.lastOptions.withLock { $0 }?.effectiveScaleDownSourcePixelLimit == 4_000, "4 × the pixel limit by default")
    }

    @Test func pixelLimitFromContextRefusesLargeImages() async {
        let loader = MemoryLoader()
        loader.serve("a", data: RawCoder.data(width: 10, height: 10))
        let manager = makeManager(loader: loader)
        var context = ImageContext()
        context.pixelLimit = 99
        do {
            _ = try await manager.image(for: memURL("a"), context: context)
            Issue.record("pixel limit ignored")
        } catch { #expect(error.code == .pixelLimitExceeded) }
    }

    @Test func cacheMemoryOnlyLeavesTheBackingTierEmpty() async throws {
        let loader = MemoryLoader()
        loader.serve("a", data: RawCoder.data(width: 2, height: 2))
        let backing = MemoryCache()
        let cache = TieredCache(backing: backing)
        let manager = makeManager(cache: cache, loader: loader)
        _ = try await manager.image(for: memURL("a"), options: .cacheMemoryOnly)
        #expect(backing.count == 0)
        #expect(cache.memory.count == 1)
    }

    @Test func fromCacheOnlyNeverLoads() async throws {
        let loader = MemoryLoader()
        loader.serve("a", data: RawCoder.data(width: 2, height: 2))
        let manager = makeManager(loader: loader)
        do {
            _ = try await manager.image(for: memURL("a"), options: .fromCacheOnly)
            Issue.record("loaded with fromCacheOnly")
        } catch { #expect(error.code == .notInCache) }
        #expect(loader.requestCount == 0)
        #expect(!manager.isFailed(memURL("a")))
        _ = try await manager.image(for: memURL("a"))
        #expect(try await manager.image(for: memURL("a"), options: .fromCacheOnly).cacheType == .memory)
    }

    @Test func fromLoaderOnlySkipsTheCacheQuery() async throws {
        let loader = MemoryLoader()
        loader.serve("a", data: RawCoder.data(width: 2, height: 2))
        let manager = makeManager(loader: loader)
        _ = try await manager.image(for: memURL("a"))
        let again = try await manager.image(for: memURL("a"), options: .fromLoaderOnly)
        #expect(again.cacheType == ImageCacheType.none)
        #expect(loader.requestCount == 2)
    }

    @Test func queryMemoryOnlyIgnoresTheDiskTier() async throws {
        let backing = MemoryCache()
        backing.setEntry(CacheEntry(data: RawCoder.data(width: 2, height: 2)), forKey: memURL("a").absoluteString)
        let loader = MemoryLoader()
        loader.serve("a", data: RawCoder.data(width: 3, height: 3))
        let manager = makeManager(cache: TieredCache(backing: backing), loader: loader)
        let result = try await manager.image(for: memURL("a"), options: .queryMemoryOnly)
        #expect(result.cacheType == ImageCacheType.none)
        #expect(result.image?.width == 3)
    }

    @Test func diskHitWithBytesOnlyIsDecodedAndPromoted() async throws {
        let backing = MemoryCache()
        backing.setEntry(CacheEntry(data: RawCoder.data(width: 2, height: 2)), forKey: memURL("a").absoluteString)
        let cache = TieredCache(backing: backing)
        let manager = makeManager(cache: cache)
        let result = try await manager.image(for: memURL("a"))
        #expect(result.cacheType == .disk)
        #expect(result.image?.width == 2)
        #expect(cache.memory.image(forKey: memURL("a").absoluteString) != nil)
    }

    @Test func avoidDecodeDeliversBytesOnly() async throws {
        let loader = MemoryLoader()
        let bytes = RawCoder.data(width: 2, height: 2)
        loader.serve("a", data: bytes)
        let coder = RawCoder()
        let manager = makeManager(loader: loader, coder: coder)
        let result = try await manager.image(for: memURL("a"), options: .avoidDecode)
        #expect(result.image == nil)
        #expect(result.data == bytes)
        #expect(coder.decodeCount.value == 0)
    }

    @Test func progressiveLoadDeliversPreviewsThenTheFullImage() async throws {
        let loader = MemoryLoader(chunkSize: 300)
        loader.serve("p", data: RawCoder.data(width: 10, height: 20))
        let manager = makeManager(loader: loader)
        let events = EventLog<ImageLoadEvent>()
        let result = try await manager.image(for: memURL("p"), options: .progressiveLoad) { events.append($0) }
        let previews = events.all.compactMap { if case .preview(let image) = $0 { image } else { nil } }
        #expect(previews.count >= 2)
        #expect(previews.first?.isPreview == true)
        #expect(result.image?.isPreview == false)
        let progress = events.all.compactMap { if case .progress(let r, let e) = $0 { (r, e) } else { nil } }
        #expect(progress.map(\.0) == progress.map(\.0).sorted(), "progress is monotonic")
        #expect(progress.last?.0 == progress.last?.1)
    }

    @Test func transformAnimatedImageTransformsEveryFrame() async throws {
        let loader = MemoryLoader()
        loader.serve("f", data: Data("FRAMES".utf8))
        let manager = ImageManager(configuration: .init(loaders: LoaderRegistry([loader]), coders: CoderRegistry([FramesCoder()])))
        var context = ImageContext()
        context.transformer = ClosureTransformer(key: "half") { RawCoder.shrink($0, toFit: PixelSize(width: 4, height: 4)) }
        let plain = try await manager.image(for: memURL("f"), context: context)
        #expect(plain.image?.frames.first?.image.width == 8)
        let animated = try await manager.image(for: memURL("f"), options: [.transformAnimatedImage, .fromLoaderOnly], context: context)
        #expect(animated.image?.frames.first?.image.width == 4)
        #expect(animated.image?.frames.first?.duration == 0.1)
        #expect(animated.image?.duration == 0.05)
        #expect(animated.image?.loopCount == 3)
    }

    @Test func theManagerHandsAnAnimationToTheTransformerWhole() async throws {
        /// Sees every frame at once: records how many it got in the loop count.
        struct WholeAnimation: ImageTransformer {
            let key = "whole"
            func transform(_ image: Image) throws(ImageKernelError) -> Image { image }
            func transformAnimation(_ image: Image) throws(ImageKernelError) -> Image {
                var output = image
                output.loopCount = 100 * image.frameCount
                return output
            }
        }
        let loader = MemoryLoader()
        loader.serve("f", data: Data("FRAMES".utf8))
        let manager = ImageManager(configuration: .init(loaders: LoaderRegistry([loader]), coders: CoderRegistry([FramesCoder()])))
        var context = ImageContext()
        context.transformer = WholeAnimation()
        let animated = try await manager.image(for: memURL("f"), options: [.transformAnimatedImage, .fromLoaderOnly], context: context)
        #expect(animated.image?.loopCount == 200)
    }

    @Test func namedOptionsParse() {
        #expect(ImageOptions(parsing: "retryFailed, fromLoaderOnly") == [.retryFailed, .fromLoaderOnly])
        #expect(ImageOptions(parsing: "") == [])
        #expect(ImageOptions(parsing: "bogus") == nil)
    }
}

/// Decodes `FRAMES` to an 8x8 image with one more 8x8 frame.
private struct FramesCoder: ImageCoder {
    let name = "Frames"
    func canDecode(_ data: Data) -> Bool { data.starts(with: Array("FRAMES".utf8)) }
    func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        var image = RawCoder.makeImage(width: 8, height: 8)
        image.frames = [ImageFrame(image: RawCoder.makeImage(width: 8, height: 8), duration: 0.1)]
        image.duration = 0.05
        image.loopCount = 3
        return image
    }
}
