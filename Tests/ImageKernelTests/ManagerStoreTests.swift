import Foundation
import ImageKernel
import Testing

/// What the manager writes to the cache (DESIGN rules 5 and 8, the CacheDisk issue's store path).
@Suite("Manager store path")
struct ManagerStoreTests {
    private func transformed(_ key: String) -> ImageContext {
        var context = ImageContext()
        context.transformer = ClosureTransformer(key: key) { $0 }
        return context
    }

    @Test func transformedImagesWithAlphaAreReencodedAsPNGOthersAsJPEG() async throws {
        let loader = MemoryLoader()
        loader.serve("alpha", data: RawCoder.data(width: 4, height: 4, alpha: true))
        loader.serve("opaque", data: RawCoder.data(width: 4, height: 4, alpha: false))
        let coder = RawCoder()
        let backing = MemoryCache()
        let manager = makeManager(cache: TieredCache(backing: backing), loader: loader, coder: coder)
        _ = try await manager.image(for: memURL("alpha"), context: transformed("t"))
        #expect(coder.encodedFormats.value == [.png])
        _ = try await manager.image(for: memURL("opaque"), context: transformed("t"))
        #expect(coder.encodedFormats.value == [.png, .jpeg])
        #expect(backing.entry(forKey: "mem://alpha/image-t.raw")?.data != nil)
    }

    @Test func theNewestRegisteredCoderDoesTheReencoding() async throws {
        let loader = MemoryLoader()
        loader.serve("a", data: RawCoder.data(width: 4, height: 4))
        let builtIn = RawCoder(name: "builtin"), custom = RawCoder(name: "custom")
        let manager = makeManager(cache: TieredCache(backing: MemoryCache()), loader: loader, coder: builtIn)
        manager.coders.register(custom)
        _ = try await manager.image(for: memURL("a"), context: transformed("t"))
        #expect(custom.encodedFormats.value == [.jpeg])
        #expect(builtIn.encodedFormats.value.isEmpty)
    }

    @Test func aCacheSerializerReplacesReencoding() async throws {
        let loader = MemoryLoader()
        loader.serve("a", data: RawCoder.data(width: 4, height: 4))
        let coder = RawCoder()
        let backing = MemoryCache()
        let manager = makeManager(cache: TieredCache(backing: backing), loader: loader, coder: coder)
        var context = transformed("t")
        context.cacheSerializer = { image, original, _ in Data("custom:\(image.width):\(original?.count ?? 0)".utf8) }
        _ = try await manager.image(for: memURL("a"), context: context)
        #expect(coder.encodedFormats.value.isEmpty)
        #expect(backing.entry(forKey: "mem://a/image-t.raw")?.data == Data("custom:4:62".utf8))
    }

    @Test func withoutAnEncoderTheTransformedImageStaysInMemoryOnly() async throws {
        let loader = MemoryLoader()
        loader.serve("a", data: RawCoder.data(width: 4, height: 4))
        let backing = MemoryCache()
        let cache = TieredCache(backing: backing)
        let manager = makeManager(cache: cache, loader: loader, coder: RawCoder(encodable: []))
        let result = try await manager.image(for: memURL("a"), context: transformed("t"))
        #expect(result.image != nil)
        #expect(backing.entry(forKey: "mem://a/image-t.raw") == nil)
        #expect(cache.memory.image(forKey: "mem://a/image-t.raw") != nil)
    }

    @Test func storeTypeFromTheContextIsHonoured() async throws {
        let loader = MemoryLoader()
        loader.serve("a", data: RawCoder.data(width: 2, height: 2))
        let backing = MemoryCache()
        let cache = TieredCache(backing: backing)
        let manager = makeManager(cache: cache, loader: loader)
        var context = ImageContext()
        context.storeCacheType = .disk
        _ = try await manager.image(for: memURL("a"), context: context)
        #expect(backing.count == 1 && cache.memory.count == 0)
        context.storeCacheType = ImageCacheType.none
        _ = try await manager.image(for: memURL("a"), options: .fromLoaderOnly, context: context)
        #expect(backing.count == 1 && cache.memory.count == 0)
    }

    @Test func aFailingCacheNeverFailsTheLoad() async throws {
        struct FullDisk: ImageCache {
            let name = "FullDisk"
            func query(key: String, type: ImageCacheType) async throws(ImageKernelError) -> CacheQueryResult? { nil }
            func store(_ entry: CacheEntry, forKey key: String, type: ImageCacheType) async throws(ImageKernelError) {
                throw ImageKernelError(stage: .cache, plugin: name, code: .diskFull, message: "No space left on device")
            }
            func remove(key: String, type: ImageCacheType) async throws(ImageKernelError) {}
            func contains(key: String, type: ImageCacheType) async -> ImageCacheType { .none }
            func clear(type: ImageCacheType) async throws(ImageKernelError) {}
        }
        let loader = MemoryLoader()
        loader.serve("a", data: RawCoder.data(width: 2, height: 2))
        let manager = makeManager(cache: FullDisk(), loader: loader)
        let result = try await manager.image(for: memURL("a"))
        #expect(result.image?.width == 2)
        #expect(!manager.isFailed(memURL("a")))
    }
}
