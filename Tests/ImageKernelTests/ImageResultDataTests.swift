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

    @Test func anAnimatedResultReportsTheWholeFileOrTheAnimationStoredForItsTransform() async throws {
        let loader = MemoryLoader()
        let file = AnimatedRawCoder.file(frames: 3)
        loader.serve("anim", data: file)
        let disk = MemoryCache()
        let cache = TieredCache(backing: disk)
        let manager = ImageManager(configuration: .init(
            cache: cache, loaders: LoaderRegistry([loader]), coders: CoderRegistry([RawCoder(), AnimatedRawCoder()])))
        let url = memURL("anim")

        let plain = try await manager.image(for: url)
        #expect(plain.image?.frameCount == 3 && plain.data == file, "untransformed: the whole file, every frame")

        let transformed = try await manager.image(for: url, options: .transformAnimatedImage, context: Self.halved)
        #expect(transformed.image?.frameCount == 3 && transformed.image?.width == 4)
        try #expect(transformed.data != nil && transformed.data == disk.entry(forKey: try #require(transformed.cacheKey))?.data)
        // Re-encoded in an animated format (the coder's GIF stand-in), every transformed frame kept.
        let stored = try AnimatedRawCoder().decode(try #require(transformed.data), options: DecodeOptions())
        #expect(stored.frameCount == 3 && stored.width == 4)
        #expect(stored.allFrames.map(\.image.pixels) == transformed.image?.allFrames.map(\.image.pixels))

        // A later disk hit answers the animation, not a still of frame 0.
        cache.memory.removeAll()
        let hit = try await manager.image(for: url, options: .transformAnimatedImage, context: Self.halved)
        #expect(hit.cacheType == .disk && hit.image?.frameCount == 3)
        #expect(hit.image?.allFrames.map(\.image.pixels) == transformed.image?.allFrames.map(\.image.pixels))
    }

    @Test func aTransformedAnimationNoCoderCanEncodeStaysOffDiskRatherThanBecomingAStill() async throws {
        let loader = MemoryLoader()
        loader.serve("anim", data: AnimatedRawCoder.file(frames: 3))
        let disk = MemoryCache()
        let cache = TieredCache(backing: disk)
        let manager = ImageManager(configuration: .init(
            cache: cache, loaders: LoaderRegistry([loader]), coders: CoderRegistry([RawCoder(), AnimatedRawCoder(encodes: false)])))
        let transformed = try await manager.image(for: memURL("anim"), options: .transformAnimatedImage, context: Self.halved)
        #expect(transformed.image?.frameCount == 3 && transformed.data == nil)
        #expect(disk.entry(forKey: try #require(transformed.cacheKey)) == nil, "PNG and JPEG would hold frame 0 only")
        cache.memory.removeAll()
        let again = try await manager.image(for: memURL("anim"), options: .transformAnimatedImage, context: Self.halved)
        // Made again (from the original kept on disk), never a still from the variant's key.
        #expect(again.image?.frameCount == 3 && again.data == nil)
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

/// "IKANIM" and a frame count: an animation of that many 8×6 RawCoder images. It "encodes" GIF
/// (unless `encodes` is false) as "IKANIM", the frame count, then each frame's RawCoder bytes
/// behind a UInt32 length, which it decodes back frame for frame.
private struct AnimatedRawCoder: ImageCoder {
    let name = "AnimatedRawCoder"
    static let magic = Array("IKANIM".utf8)
    var encodes = true

    static func file(frames: Int) -> Data { Data(magic + [UInt8(frames)]) }

    func canDecode(_ data: Data) -> Bool { data.starts(with: Self.magic) }

    func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        let bytes = [UInt8](data)
        let count = Int(bytes[Self.magic.count])
        guard bytes.count > Self.magic.count + 1 else {
            let frames = (0..<count).map { ImageFrame(image: RawCoder.makeImage(width: 8, height: 6, seed: UInt8($0)), duration: 0.1) }
            return try Image(animating: frames, loopCount: 0)
        }
        var offset = Self.magic.count + 1
        var frames: [ImageFrame] = []
        for _ in 0..<count {
            guard offset + 4 <= bytes.count else { throw ImageKernelError(stage: .decode, plugin: name, code: .truncated, message: "short frame") }
            let length = bytes[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
            offset += 4
            guard offset + length <= bytes.count else { throw ImageKernelError(stage: .decode, plugin: name, code: .truncated, message: "short frame") }
            let frame = try RawCoder().decode(Data(bytes[offset..<offset + length]), options: options)
            frames.append(ImageFrame(image: frame, duration: 0.1))
            offset += length
        }
        return try Image(animating: frames, loopCount: 0)
    }

    func canEncode(_ format: ImageFormat) -> Bool { encodes && format == .gif }

    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageKernelError) -> Data {
        var out = Self.magic + [UInt8(image.frameCount)]
        for frame in image.allFrames {
            let bytes = RawCoder.encode(frame.image)
            withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { out += $0 }
            out += bytes
        }
        return Data(out)
    }
}
