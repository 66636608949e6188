import Foundation
import ImageKernel
import Testing

/// What ``ImageResult/data`` holds in every case its documentation names: the bytes loaded or
/// stored for the delivered image, or nil; never the original's bytes for a transformed or
/// thumbnail result.
@Suite("ImageResult.data: the bytes of the delivered image")
struct ImageResultDataTests {
    /// An 8×6 original; its variants below are 4×3.
    static let original = RawCoder.data(width: 8, height: 6)

    static var halved: ImageContext {
        var context = ImageContext()
        context.transformer = ClosureTransformer(key: "half") { RawCoder.shrink($0, toFit: PixelSize(width: 4, height: 4)) }
        return context
    }

    static var thumbnail: ImageContext {
        var context = ImageContext()
        context.thumbnailPixelSize = PixelSize(width: 4, height: 4)
        return context
    }

    /// A manager over memory → `disk` (a second memory cache standing in for the disk tier).
    private func setUp(lowerTiers: [any ImageCache] = []) -> (ImageManager, TieredCache, MemoryCache, MemoryLoader) {
        let loader = MemoryLoader()
        loader.serve("a", data: Self.original)
        let disk = MemoryCache()
        let cache = TieredCache(backing: disk, lowerTiers: lowerTiers)
        return (makeManager(cache: cache, loader: loader), cache, disk, loader)
    }

    /// The size the bytes encode (nil when they are not RawCoder's).
    private func encodedSize(_ data: Data?) -> PixelSize? {
        data.flatMap(RawCoder.header).map { PixelSize(width: $0.width, height: $0.height) }
    }

    @Test func aLoadedOriginalReportsTheLoadedBytes() async throws {
        let (manager, _, disk, _) = setUp()
        let result = try await manager.image(for: memURL("a"))
        #expect(result.cacheType == .none && result.data == Self.original)
        #expect(disk.entry(forKey: try #require(result.cacheKey))?.data == Self.original)
    }

    @Test(arguments: [("transformed", ImageResultDataTests.halved), ("thumbnail", ImageResultDataTests.thumbnail)])
    func aLoadedVariantReportsTheBytesStoredForIt(_ name: String, _ context: ImageContext) async throws {
        let (manager, _, disk, _) = setUp()
        let result = try await manager.image(for: memURL("a"), context: context)
        let key = try #require(result.cacheKey)
        #expect(result.image?.width == 4 && result.image?.height == 3)
        #expect(result.data != nil && result.data == disk.entry(forKey: key)?.data, "\(name): the re-encode stored under \(key)")
        #expect(result.data != Self.original && encodedSize(result.data) == PixelSize(width: 4, height: 3))
    }

    @Test func aVariantKeptInMemoryOnlyReportsNoBytes() async throws {
        let (manager, _, _, _) = setUp()
        let result = try await manager.image(for: memURL("a"), options: .cacheMemoryOnly, context: Self.halved)
        #expect(result.image?.width == 4 && result.data == nil)
    }

    @Test func aNewVariantOfACachedOriginalReportsItsOwnStoredBytes() async throws {
        let (manager, _, disk, loader) = setUp()
        _ = try await manager.image(for: memURL("a"), context: Self.thumbnail)  // keeps the original on disk (rule 8)
        let result = try await manager.image(for: memURL("a"), context: Self.halved)
        #expect(loader.requestCount == 1 && result.cacheType == .disk, "made from the cached original")
        try #expect(result.data != nil && result.data == disk.entry(forKey: try #require(result.cacheKey))?.data)
        #expect(result.data != Self.original && encodedSize(result.data) == PixelSize(width: 4, height: 3))
    }

    @Test func aMemoryHitOfATieredCacheReportsNoBytes() async throws {
        let (manager, _, _, _) = setUp()
        for context in [ImageContext(), Self.halved] {
            _ = try await manager.image(for: memURL("a"), context: context)
            let hit = try await manager.image(for: memURL("a"), context: context)
            #expect(hit.cacheType == .memory && hit.data == nil, "its memory tier keeps images only")
        }
    }

    @Test func aMemoryHitOfAMemoryCacheReportsTheBytesStoredWithTheImage() async throws {
        let loader = MemoryLoader()
        loader.serve("a", data: Self.original)
        let manager = makeManager(cache: MemoryCache(), loader: loader)
        for context in [ImageContext(), Self.halved] {
            let loaded = try await manager.image(for: memURL("a"), context: context)
            let hit = try await manager.image(for: memURL("a"), context: context)
            #expect(hit.cacheType == .memory && hit.data != nil && hit.data == loaded.data)
        }
        #expect(try await manager.image(for: memURL("a"), context: Self.halved).data != Self.original)
    }

    @Test func aDiskHitReportsTheBytesTheImageWasDecodedFrom() async throws {
        let (manager, cache, disk, _) = setUp()
        for (context, size) in [(ImageContext(), PixelSize(width: 8, height: 6)), (Self.halved, PixelSize(width: 4, height: 3))] {
            _ = try await manager.image(for: memURL("a"), context: context)
            cache.memory.removeAll()
            let hit = try await manager.image(for: memURL("a"), context: context)
            #expect(hit.cacheType == .disk && !hit.isFromSharedCache)
            try #expect(hit.data != nil && hit.data == disk.entry(forKey: try #require(hit.cacheKey))?.data)
            #expect(encodedSize(hit.data) == size && hit.image?.width == size.width)
        }
    }

    @Test func aSharedTierHitReportsTheSharedBytes() async throws {
        let shared = SharedTier()
        let (manager, cache, disk, _) = setUp(lowerTiers: [shared])
        for (context, size) in [(ImageContext(), PixelSize(width: 8, height: 6)), (Self.halved, PixelSize(width: 4, height: 3))] {
            _ = try await manager.image(for: memURL("a"), context: context)
            cache.memory.removeAll()
            disk.removeAll()
            let hit = try await manager.image(for: memURL("a"), context: context)
            #expect(hit.cacheType == .disk && hit.isFromSharedCache)
            try #expect(hit.data != nil && hit.data == shared.inner.entry(forKey: try #require(hit.cacheKey))?.data)
            #expect(encodedSize(hit.data) == size)
        }
    }

    @Test func anAnimatedResultReportsTheWholeFileOrTheStillStoredForItsTransform() async throws {
        let loader = MemoryLoader()
        let file = AnimatedRawCoder.file(frames: 3)
        loader.serve("anim", data: file)
        let disk = MemoryCache()
        let manager = ImageManager(configuration: .init(
            cache: TieredCache(backing: disk), loaders: LoaderRegistry([loader]), coders: CoderRegistry([RawCoder(), AnimatedRawCoder()])))
        let url = memURL("anim")

        let plain = try await manager.image(for: url)
        #expect(plain.image?.frameCount == 3 && plain.data == file, "untransformed: the whole file, every frame")

        let transformed = try await manager.image(for: url, options: .transformAnimatedImage, context: Self.halved)
        #expect(transformed.image?.frameCount == 3 && transformed.image?.width == 4)
        try #expect(transformed.data != nil && transformed.data == disk.entry(forKey: try #require(transformed.cacheKey))?.data)
        // PNG and JPEG are still formats: the re-encode holds the first transformed frame only.
        let stored = try RawCoder().decode(try #require(transformed.data), options: DecodeOptions())
        #expect(stored.frameCount == 1 && stored.width == 4 && stored.pixels == transformed.image?.pixels)
    }

    /// With avoidDecode a variant that is not cached yet used to be answered with the loaded
    /// original's bytes under the variant's key; its bytes exist only once it is made and stored.
    @Test(arguments: [("transformed", ImageResultDataTests.halved), ("thumbnail", ImageResultDataTests.thumbnail)])
    func avoidDecodeNeverGivesAVariantTheOriginalBytes(_ name: String, _ context: ImageContext) async throws {
        let (manager, cache, disk, _) = setUp()
        let result = try await manager.image(for: memURL("a"), options: .avoidDecode, context: context)
        #expect(result.data != Self.original, "\(name): the original's bytes under the key \(result.cacheKey ?? "-")")
        try #expect(result.data != nil && result.data == disk.entry(forKey: try #require(result.cacheKey))?.data)
        #expect(encodedSize(result.data) == PixelSize(width: 4, height: 3))
        // Cached now, the variant's bytes come from the disk tier as they are.
        cache.memory.removeAll()
        let cached = try await manager.image(for: memURL("a"), options: .avoidDecode, context: context)
        #expect(cached.cacheType == .disk && cached.data == result.data)
    }

    @Test func avoidDecodeOfAnOriginalReportsTheLoadedBytesWithoutAnImage() async throws {
        let (manager, _, _, _) = setUp()
        let result = try await manager.image(for: memURL("a"), options: .avoidDecode)
        #expect(result.image == nil && result.data == Self.original)
    }
}

/// "IKANIM" and a frame count: an animation of that many 8×6 RawCoder images.
private struct AnimatedRawCoder: ImageCoder {
    let name = "AnimatedRawCoder"
    static let magic = Array("IKANIM".utf8)

    static func file(frames: Int) -> Data { Data(magic + [UInt8(frames)]) }

    func canDecode(_ data: Data) -> Bool { data.starts(with: Self.magic) }

    func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        let count = Int(data.last ?? 1)
        let frames = (0..<count).map { ImageFrame(image: RawCoder.makeImage(width: 8, height: 6, seed: UInt8($0)), duration: 0.1) }
        return try Image(animating: frames, loopCount: 0)
    }
}
