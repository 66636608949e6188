import Foundation
import ImageKernel
import Testing

@Suite("Memory and tiered caches")
struct MemoryCacheTests {
    private func entry(cost: Int) -> CacheEntry { CacheEntry(data: Data(count: cost)) }

    @Test func evictsLeastRecentlyUsedByCount() {
        let cache = MemoryCache(costLimit: 0, countLimit: 3)
        for key in ["a", "b", "c"] { cache.setEntry(entry(cost: 1), forKey: key) }
        _ = cache.entry(forKey: "a")  // a is now most recent
        cache.setEntry(entry(cost: 1), forKey: "d")
        #expect(cache.entry(forKey: "b") == nil, "b was least recently used")
        #expect(cache.entry(forKey: "a") != nil)
        #expect(cache.count == 3)
    }

    @Test func evictsLeastRecentlyUsedByCost() {
        let cache = MemoryCache(costLimit: 100)
        cache.setEntry(entry(cost: 40), forKey: "a")
        cache.setEntry(entry(cost: 40), forKey: "b")
        _ = cache.entry(forKey: "a")
        cache.setEntry(entry(cost: 40), forKey: "c")
        #expect(cache.entry(forKey: "b") == nil)
        #expect(cache.totalCost == 80)
        cache.setEntry(entry(cost: 500), forKey: "huge")
        #expect(cache.entry(forKey: "huge") == nil, "an entry over the whole limit is not kept")
        #expect(cache.totalCost <= 100)
    }

    @Test func imageCostIsPixelBytes() {
        let cache = MemoryCache()
        cache.setImage(RawCoder.makeImage(width: 10, height: 10, alpha: true), forKey: "x")
        #expect(cache.totalCost == 400)
    }

    @Test func replacingAndRemovingKeepsCostsRight() {
        let cache = MemoryCache(costLimit: 1000)
        cache.setEntry(entry(cost: 100), forKey: "a")
        cache.setEntry(entry(cost: 300), forKey: "a")
        #expect(cache.totalCost == 300 && cache.count == 1)
        cache.removeValue(forKey: "a")
        #expect(cache.totalCost == 0 && cache.count == 0)
        for i in 0..<50 { cache.setEntry(entry(cost: 10), forKey: "k\(i)") }
        cache.countLimit = 10
        #expect(cache.count == 10)
        #expect(cache.entry(forKey: "k49") != nil && cache.entry(forKey: "k0") == nil)
        cache.removeAll()
        #expect(cache.count == 0 && cache.totalCost == 0)
    }

    @Test func concurrentUseKeepsInvariants() async {
        let cache = MemoryCache(costLimit: 5000, countLimit: 64)
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask {
                    for i in 0..<2000 {
                        let key = "k\((i * 31 + t) % 200)"
                        if i % 3 == 0 { cache.removeValue(forKey: key) } else if i % 2 == 0 {
                            cache.setEntry(CacheEntry(data: Data(count: 10 + i % 90)), forKey: key)
                        } else { _ = cache.entry(forKey: key) }
                    }
                }
            }
        }
        #expect(cache.count <= 64)
        #expect(cache.totalCost <= 5000)
    }

    @Test func tieredCachePromotesBackingHitsWithImagesIntoMemory() async throws {
        let backing = MemoryCache()
        let tiered = TieredCache(backing: backing)
        let image = RawCoder.makeImage(width: 2, height: 2)
        backing.setEntry(CacheEntry(image: image), forKey: "k")
        #expect(tiered.memory.entry(forKey: "k") == nil)
        let hit = try await tiered.query(key: "k", type: .all)
        #expect(hit?.source == .disk)
        #expect(tiered.memory.image(forKey: "k") == image, "promoted")
        #expect(try await tiered.query(key: "k", type: .all)?.source == .memory)
        #expect(try await tiered.query(key: "k", type: .disk)?.source == .disk)
    }

    @Test func tieredCacheTypesSelectTiers() async throws {
        let backing = MemoryCache()
        let tiered = TieredCache(backing: backing)
        let image = RawCoder.makeImage(width: 2, height: 2)
        try await tiered.store(CacheEntry(image: image, data: Data([1])), forKey: "m", type: .memory)
        #expect(backing.count == 0)
        try await tiered.store(CacheEntry(image: image, data: Data([1])), forKey: "d", type: .disk)
        #expect(tiered.memory.count == 1 && backing.count == 1)
        #expect(await tiered.contains(key: "d", type: .all) == .disk)
        #expect(await tiered.contains(key: "m", type: .disk) == .none)
        try await tiered.clear(type: .disk)
        #expect(await tiered.contains(key: "m", type: .all) == .memory, "clearing disk keeps memory")
        try await tiered.store(CacheEntry(image: image, data: Data([1])), forKey: "x", type: .all)
        try await tiered.clear(type: .memory)
        #expect(await tiered.contains(key: "x", type: .all) == .disk, "clearing memory keeps disk")
        try await tiered.remove(key: "x", type: .all)
        #expect(await tiered.contains(key: "x", type: .all) == .none)
    }

    @Test func memoryCacheKeepsTheImageAndTheBytesItIsGiven() async throws {
        let cache = MemoryCache()
        let image = RawCoder.makeImage(width: 2, height: 2)
        try await cache.store(CacheEntry(image: image, data: Data([7])), forKey: "k", type: .all)
        let hit = try #require(try await cache.query(key: "k", type: .memory))
        #expect(hit.entry.image == image && hit.entry.data == Data([7]))
    }

    @Test func tieredBytesOnlyStoresAreNeverSilentlyDropped() async throws {
        let backing = MemoryCache()
        let tiered = TieredCache(backing: backing)
        // .memory: the memory tier keeps the bytes as given.
        try await tiered.store(CacheEntry(data: Data([1])), forKey: "m", type: .memory)
        #expect(try await tiered.query(key: "m", type: .memory)?.entry.data == Data([1]))
        // .all: the bytes go to the backing tier, and an older image in memory cannot shadow them.
        try await tiered.store(CacheEntry(image: RawCoder.makeImage(width: 1, height: 1)), forKey: "a", type: .memory)
        try await tiered.store(CacheEntry(data: Data([2])), forKey: "a", type: .all)
        let hit = try #require(try await tiered.query(key: "a", type: .all))
        #expect(hit.source == .disk && hit.entry.data == Data([2]) && hit.entry.image == nil)
    }

    @Test func aCancelledQueryThrowsTypedCancelled() async throws {
        let tiered = TieredCache(backing: MemoryCache())
        try await tiered.store(CacheEntry(image: RawCoder.makeImage(width: 1, height: 1)), forKey: "k", type: .all)
        let outcome = await Task { () async -> ImageKernelError? in
            withUnsafeCurrentTask { $0?.cancel() }
            do throws(ImageKernelError) { _ = try await tiered.query(key: "k", type: .all); return nil } catch { return error }
        }.value
        #expect(outcome?.code == .cancelled && outcome?.stage == .cache)
    }
}
