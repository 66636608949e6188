import Foundation
import ImageKernel
import Testing

/// The cache contract as SDWebImage's manager and cache tests state it (issue 9, item 4).
@Suite("Manager cache contract")
struct CacheContractTests {
    private func setUp() -> (ImageManager, TieredCache, MemoryCache, MemoryLoader, RawCoder) {
        let loader = MemoryLoader()
        loader.serve("a", data: RawCoder.data(width: 8, height: 6))
        let backing = MemoryCache()  // the persistent tier: it keeps what it is given
        let tiered = TieredCache(memory: MemoryCache(), backing: backing)
        let coder = RawCoder()
        return (makeManager(cache: tiered, loader: loader, coder: coder), tiered, backing, loader, coder)
    }

    private func transformed(_ key: String = "t") -> ImageContext {
        var context = ImageContext()
        context.transformer = ClosureTransformer(key: key) { $0 }
        return context
    }

    @Test func storeCacheTypeDiskKeepsDiskHitsOutOfMemory() async throws {
        let (manager, tiered, _, loader, _) = setUp()
        var context = ImageContext()
        context.storeCacheType = .disk
        _ = try await manager.image(for: memURL("a"), context: context)
        #expect(tiered.memory.count == 0, "the load went to disk only")
        let hit = try await manager.image(for: memURL("a"), context: context)
        #expect(hit.cacheType == .disk)
        #expect(tiered.memory.count == 0, "a disk hit is not copied into memory")
        #expect(loader.requestCount == 1)
        _ = try await manager.image(for: memURL("a"))
        #expect(tiered.memory.count == 1, "the default store type still promotes")
    }

    @Test func originalStoreCacheTypeMemoryKeepsTheDecodedOriginalInMemory() async throws {
        let (manager, tiered, backing, _, _) = setUp()
        var context = transformed()
        context.originalStoreCacheType = .memory
        _ = try await manager.image(for: memURL("a"), context: context)
        let originalKey = try #require(manager.originalCacheKey(for: memURL("a"), context: context))
        #expect(tiered.memory.image(forKey: originalKey)?.width == 8, "the decoded original is in memory")
        #expect(backing.entry(forKey: originalKey) == nil, "and not on disk")
    }

    @Test func originalStoreCacheTypeAllKeepsImageInMemoryAndBytesOnDisk() async throws {
        let (manager, tiered, backing, _, _) = setUp()
        var context = ImageContext()
        context.thumbnailPixelSize = PixelSize(width: 4, height: 4)
        context.originalStoreCacheType = .all
        let result = try await manager.image(for: memURL("a"), context: context)
        #expect(result.image?.width == 4)
        let originalKey = try #require(manager.originalCacheKey(for: memURL("a"), context: context))
        #expect(tiered.memory.image(forKey: originalKey)?.width == 8, "the full-size original, not the thumbnail")
        #expect(backing.entry(forKey: originalKey)?.data == RawCoder.data(width: 8, height: 6))
    }

    @Test func theCacheSerializerDecidesDiskBytesForUntransformedLoadsToo() async throws {
        let (manager, tiered, backing, _, _) = setUp()
        var context = ImageContext()
        context.cacheSerializer = { image, original, _ in Data("s:\(image.width):\(original?.count ?? -1)".utf8) }
        let result = try await manager.image(for: memURL("a"), context: context)
        let key = try #require(result.cacheKey)
        #expect(backing.entry(forKey: key)?.data == Data("s:8:158".utf8))
        #expect(result.data == RawCoder.data(width: 8, height: 6), "an untransformed result reports the bytes it loaded")

        context.cacheSerializer = { _, _, _ in nil }
        loaderServe(manager, "b")
        let none = try await manager.image(for: memURL("b"), context: context)
        let noneKey = try #require(none.cacheKey)
        #expect(backing.entry(forKey: noneKey) == nil, "nil from the serializer keeps the result off disk")
        #expect(tiered.memory.image(forKey: noneKey) != nil, "memory still gets the image")
    }

    @Test func aVariantResultsDataDescribesTheDeliveredImage() async throws {
        let (manager, _, backing, _, _) = setUp()
        var half = ImageContext()
        half.transformer = ClosureTransformer(key: "half") { RawCoder.shrink($0, toFit: PixelSize(width: 4, height: 4)) }
        let transformedResult = try await manager.image(for: memURL("a"), context: half)
        let variantKey = try #require(transformedResult.cacheKey)
        let stored = backing.entry(forKey: variantKey)?.data
        #expect(stored != nil)
        #expect(transformedResult.data == stored, "the bytes stored for the variant")
        #expect(transformedResult.data.flatMap { RawCoder.header($0)?.width } == 4, "the transformed image's bytes, never the original's")

        var thumbnail = ImageContext()
        thumbnail.thumbnailPixelSize = PixelSize(width: 4, height: 4)
        let small = try await manager.image(for: memURL("a"), context: thumbnail)
        #expect(small.image?.width == 4)
        #expect(small.data.flatMap { RawCoder.header($0)?.width } == 4, "bytes of the 4-pixel thumbnail")

        thumbnail.storeCacheType = .memory
        thumbnail.thumbnailPixelSize = PixelSize(width: 2, height: 2)
        let memoryOnly = try await manager.image(for: memURL("a"), context: thumbnail)
        #expect(memoryOnly.data == nil, "no bytes were stored, so none are reported")
    }

    @Test func anEmptyThumbnailBoxMeansFullSizeEverywhere() async throws {
        let image = PixelSize(width: 40, height: 30)
        for box in [PixelSize(width: 0, height: 0), PixelSize(width: 0, height: 10), PixelSize(width: 10, height: -1)] {
            #expect(PixelSize.thumbnail(of: image, fitting: box) == image, "\(box)")
        }
        let (manager, _, _, _, coder) = setUp()
        var context = ImageContext()
        context.thumbnailPixelSize = PixelSize(width: 0, height: 0)
        #expect(manager.cacheKey(for: memURL("a"), context: context) == manager.cacheKey(for: memURL("a")))
        let result = try await manager.image(for: memURL("a"), context: context)
        #expect(result.image?.width == 8)
        #expect(coder.lastOptions.value?.thumbnailPixelSize == nil, "the coder is asked for full size")
    }

    @Test func progressiveLoadsDeliverTheFinalImageOnceAsTheResult() async throws {
        let loader = MemoryLoader(chunkSize: 64)
        loader.serve("p", data: RawCoder.data(width: 16, height: 16))
        let coder = RawCoder()
        let manager = makeManager(loader: loader, coder: coder)
        let events = EventLog<ImageLoadEvent>()
        let result = try await manager.image(for: memURL("p"), options: .progressiveLoad) { events.append($0) }
        let previews = events.all.compactMap { if case .preview(let image) = $0 { image } else { nil } }
        #expect(previews.count >= 2)
        #expect(previews.allSatisfy { $0.isPreview }, "the final image is never a preview")
        #expect(result.image?.isPreview == false)
        #expect(coder.decodeCount.value == 1, "one full decode")
        #expect(coder.progressiveCompletions.value == 0, "the progressive decoder never decoded the whole image")
    }

    private func loaderServe(_ manager: ImageManager, _ host: String) {
        (manager.loaders.loaders.first as? MemoryLoader)?.serve(host, data: RawCoder.data(width: 8, height: 6))
    }
}
