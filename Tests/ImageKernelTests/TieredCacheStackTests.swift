import Foundation
import ImageKernel
import ImageKernelConformance
import Testing

/// A persistent tier that other processes share: a memory cache whose hits say `isShared`, and
/// whose stores can be made to fail.
final class SharedTier: ImageCache, Sendable {
    let name = "SharedTier"
    let inner = MemoryCache()
    private let failing = Locked(false)

    func failStores() { failing.withLock { $0 = true } }

    func query(key: String, type: ImageCacheType) async throws(ImageKernelError) -> CacheQueryResult? {
        guard type.includesDisk, let entry = inner.entry(forKey: key) else { return nil }
        return CacheQueryResult(entry: entry, source: .disk, isShared: true)
    }

    func store(_ entry: CacheEntry, forKey key: String, type: ImageCacheType) async throws(ImageKernelError) {
        guard type.includesDisk else { return }
        if failing.withLock({ $0 }) { throw ImageKernelError(stage: .cache, plugin: name, code: .cannotConnect, message: "down") }
        inner.setEntry(entry, forKey: key)
    }

    func remove(key: String, type: ImageCacheType) async throws(ImageKernelError) { if type.includesDisk { inner.removeValue(forKey: key) } }
    func contains(key: String, type: ImageCacheType) async -> ImageCacheType { type.includesDisk && inner.containsValue(forKey: key) ? .disk : .none }
    func clear(type: ImageCacheType) async throws(ImageKernelError) { if type.includesDisk { inner.removeAll() } }
}

/// `TieredCache` as a stack of any depth: memory → backing → lower tiers.
@Suite struct TieredCacheStackTests {
    @Test func aLowerHitIsPromotedIntoEveryNearerTier() async throws {
        let (disk, shared) = (MemoryCache(), SharedTier())
        let stack = TieredCache(backing: disk, lowerTiers: [shared])
        shared.inner.setEntry(CacheEntry(data: Data([1, 2, 3]), validators: CacheValidators(etag: "e")), forKey: "k")

        let hit = try #require(try await stack.query(key: "k", type: .all))
        #expect(hit.source == .disk && hit.isShared)
        #expect(hit.entry.data == Data([1, 2, 3]) && hit.entry.validators?.etag == "e")
        #expect(disk.entry(forKey: "k")?.data == Data([1, 2, 3]), "the shared hit landed on the nearer tier")
        #expect(disk.entry(forKey: "k")?.validators?.etag == "e")

        let again = try #require(try await stack.query(key: "k", type: .disk))
        #expect(again.source == .disk && !again.isShared, "the nearer tier answers now")
    }

    @Test func aLowerHitWithAnImageLandsInMemory() async throws {
        let shared = SharedTier()
        let stack = TieredCache(backing: MemoryCache(), lowerTiers: [MemoryCache(), shared])
        let image = RawCoder.makeImage(width: 2, height: 2)
        shared.inner.setEntry(CacheEntry(image: image), forKey: "k")
        #expect(try await stack.query(key: "k", type: .all)?.isShared == true)
        #expect(stack.memory.image(forKey: "k") == image)
        #expect(try await stack.query(key: "k", type: .all)?.source == .memory)
    }

    @Test func storesReachEveryTierAndAFailingTierDoesNotStopTheOthers() async throws {
        let (disk, shared) = (MemoryCache(), SharedTier())
        let stack = TieredCache(backing: disk, lowerTiers: [shared])
        try await stack.store(CacheEntry(data: Data([1])), forKey: "a", type: .disk)
        #expect(disk.containsValue(forKey: "a") && shared.inner.containsValue(forKey: "a"))
        #expect(await stack.contains(key: "a", type: .disk) == .disk)

        shared.failStores()
        do {
            try await stack.store(CacheEntry(data: Data([2])), forKey: "a", type: .all)
            Issue.record("the failing tier's error was swallowed")
        } catch {
            #expect(error.code == .cannotConnect && error.plugin == "SharedTier")
        }
        #expect(disk.entry(forKey: "a")?.data == Data([2]), "the nearer tier stored before the lower one failed")
        #expect(shared.inner.entry(forKey: "a")?.data == Data([1]), "the failing tier keeps its old entry")

        try await stack.remove(key: "a", type: .all)
        #expect(await stack.contains(key: "a", type: .all) == .none)
        #expect(stack.name == "TieredCache(MemoryCache → SharedTier)")
    }

    @Test func aThreeTierStackPassesTheCacheSuite() async throws {
        try await CacheConformance(
            makeCache: { TieredCache(backing: MemoryCache(), lowerTiers: [SharedTier()]) }, tiers: .memoryAndDisk
        ).run()
    }

    @Test func theManagerReportsAResultFromTheSharedTier() async throws {
        let shared = SharedTier()
        let loader = MemoryLoader()
        let manager = makeManager(cache: TieredCache(backing: MemoryCache(), lowerTiers: [shared]), loader: loader)
        let url = memURL("shared")
        shared.inner.setEntry(CacheEntry(data: RawCoder.data(width: 3, height: 2)), forKey: url.absoluteString)

        let first = try await manager.image(for: url)
        #expect(first.cacheType == .disk && first.isFromSharedCache)
        #expect(first.image?.width == 3)
        let second = try await manager.image(for: url)
        #expect(second.cacheType == .memory && !second.isFromSharedCache)
        #expect(loader.requestCount(for: url) == 0)
    }
}
