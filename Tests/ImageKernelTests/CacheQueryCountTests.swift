import Foundation
@testable import ImageKernel
import Testing

/// Rule 9's "one cache query" counted on a user's cache in the manager's cache slot: each tier of
/// the final key is asked once per result, however many callers share it, and once for a single
/// load (Nuke's TaskLoadImage checks the memory cache once per coalesced task).
@Suite("One cache query per tier of a result (rule 9)")
struct CacheQueryCountTests {
    /// A gated loader serving "a", and a counting cache over memory → a second memory cache
    /// standing in for the disk tier.
    private func setUp(_ inner: (any ImageCache)? = nil) -> (ImageManager, GatedLoader, CountingCache) {
        let loader = GatedLoader()
        loader.serve("a", RawCoder.data(width: 40, height: 30))
        let cache = CountingCache(inner ?? TieredCache(backing: MemoryCache()))
        let manager = ImageManager(configuration: .init(cache: cache, loaders: LoaderRegistry([loader]), coders: CoderRegistry([RawCoder()])))
        return (manager, loader, cache)
    }

    private static var transformed: ImageContext {
        var context = ImageContext()
        context.transformer = ClosureTransformer(key: "same") { $0 }
        return context
    }

    @Test(arguments: [("plain", ImageContext()), ("transformed", CacheQueryCountTests.transformed)])
    func concurrentCallersMakeOneQueryPerTierOfTheFinalKey(_ name: String, _ context: ImageContext) async throws {
        let (manager, loader, cache) = setUp()
        let callers = 10
        let widths = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<callers { group.addTask { try await manager.image(for: gateURL("a"), context: context).image?.width ?? 0 } }
            #expect(await eventually { loader.started.value == 1 && manager.resultSubscriberCount == callers })
            loader.open()
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(widths == Array(repeating: 40, count: callers))
        let key = try #require(manager.cacheKey(for: gateURL("a"), context: context))
        #expect(cache.tierQueries(key) == .init(memory: 1, disk: 1), "\(name): \(callers) callers, \(cache.tierQueries(key))")
        #expect(loader.requestCount == 1)
    }

    @Test func aSingleLoadAsksEachTierOnceAndAMemoryHitAsksMemoryOnce() async throws {
        let (manager, loader, cache) = setUp()
        loader.open()
        let key = "gate://a/image.raw"
        let loaded = try await manager.image(for: gateURL("a"))
        #expect(loaded.cacheType == .none)
        #expect(cache.tierQueries(key) == .init(memory: 1, disk: 1), "a miss: \(cache.tierQueries(key))")
        let hit = try await manager.image(for: gateURL("a"))
        #expect(hit.cacheType == .memory && hit.image?.width == 40)
        #expect(cache.tierQueries(key) == .init(memory: 2, disk: 1), "a hit asks memory once more, and nothing else")
        #expect(manager.resultSubscriberCount == 0, "a hit leaves no work behind")
    }

    @Test("a finished result in the cache's memory tier answers without a claim or a query; a miss still asks once for all callers")
    func aMemoryTierAnswersFinishedResultsWithoutAQuery() async throws {
        let loader = GatedLoader()
        loader.serve("a", RawCoder.data(width: 40, height: 30))
        let cache = CountingCache(TieredCache(backing: MemoryCache()), exposesMemoryTier: true)
        let manager = ImageManager(configuration: .init(cache: cache, loaders: LoaderRegistry([loader]), coders: CoderRegistry([RawCoder()])))
        let callers = 10
        let widths = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<callers { group.addTask { try await manager.image(for: gateURL("a")).image?.width ?? 0 } }
            #expect(await eventually { loader.started.value == 1 && manager.resultSubscriberCount == callers })
            loader.open()
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(widths == Array(repeating: 40, count: callers))
        let key = "gate://a/image.raw"
        #expect(cache.tierQueries(key) == .init(memory: 1, disk: 1), "the miss: one query per tier for \(callers) callers")
        for _ in 0..<20 {
            let hit = try await manager.image(for: gateURL("a"))
            #expect(hit.cacheType == .memory && hit.image?.width == 40 && hit.cacheKey == key)
        }
        #expect(cache.tierQueries(key) == .init(memory: 1, disk: 1), "20 hits from the memory tier, no query: \(cache.tierQueries(key))")
        #expect(manager.resultSubscriberCount == 0 && loader.requestCount == 1)
        let refreshed = try await manager.image(for: gateURL("a"), options: .fromLoaderOnly)
        #expect(refreshed.cacheType == .none, "fromLoaderOnly skips the memory tier as before")
    }

    @Test func callersThatComeWhileTheMemoryTierIsAskedShareItsHit() async throws {
        let memory = HeldMemoryCache()
        let (manager, loader, cache) = setUp(memory)
        memory.inner.setImage(RawCoder.makeImage(width: 40, height: 30), forKey: "gate://a/image.raw")
        let callers = 5
        let results = try await withThrowingTaskGroup(of: ImageResult.self) { group in
            for _ in 0..<callers { group.addTask { try await manager.image(for: gateURL("a")) } }
            #expect(await eventually { memory.waiting.value == 1 && manager.resultSubscriberCount == callers })
            memory.release()
            return try await group.reduce(into: [ImageResult]()) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.cacheType == .memory && $0.image?.width == 40 })
        #expect(cache.tierQueries("gate://a/image.raw") == .init(memory: 1, disk: 0))
        #expect(loader.requestCount == 0)
    }

    @Test func theClaimingCallersCancellationLeavesTheOthersTheirLoad() async throws {
        let memory = HeldMemoryCache()
        let (manager, loader, _) = setUp(memory)
        loader.open()
        let first = Task { try await manager.image(for: gateURL("a")) }
        #expect(await eventually { memory.waiting.value == 1 })
        let second = Task { try await manager.image(for: gateURL("a")) }
        #expect(await eventually { manager.resultSubscriberCount == 2 })
        first.cancel()  // the claiming caller: its memory query is still held
        memory.release()
        await #expect(throws: ImageKernelError.self) { try await first.value }
        let result = try await second.value
        #expect(result.image?.width == 40 && result.cacheType == .none)
        #expect(loader.requestCount == 1)
    }
}

/// A memory cache whose queries wait until released (disk queries miss at once), so callers can
/// pile up while the one memory query of a result is in flight.
private final class HeldMemoryCache: ImageCache, Sendable {
    let name = "HeldMemoryCache"
    let inner = MemoryCache()
    let waiting = Locked(0)
    private let gate = Gate()

    func release() { gate.open() }

    func query(key: String, type: ImageCacheType) async throws(ImageKernelError) -> CacheQueryResult? {
        guard type.includesMemory else { return nil }
        waiting.withLock { $0 += 1 }
        await gate.wait()
        return try await inner.query(key: key, type: type)
    }

    func store(_ entry: CacheEntry, forKey key: String, type: ImageCacheType) async throws(ImageKernelError) {
        try await inner.store(entry, forKey: key, type: type)
    }

    func remove(key: String, type: ImageCacheType) async throws(ImageKernelError) { try await inner.remove(key: key, type: type) }
    func contains(key: String, type: ImageCacheType) async -> ImageCacheType { await inner.contains(key: key, type: type) }
    func clear(type: ImageCacheType) async throws(ImageKernelError) { try await inner.clear(type: type) }
}
