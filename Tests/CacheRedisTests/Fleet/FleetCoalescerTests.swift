import CacheRedis
import CoderPNG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import LoaderHTTP
import Testing

/// The library's fleet parts on a real Redis Cluster: `FleetCoalescer` (one producer per key
/// across processes, a dead holder taken over, renewal, failing open) and a `TieredCache` with a
/// cluster tier under `ImageManager` while a master is killed. Each `RedisCache` here has its own
/// connections, as separate processes would.
@Suite("FleetCoalescer and the cluster tier", .serialized, .enabled(if: RedisClusterServer.isAvailable))
struct FleetCoalescerTests {
    /// A cache on the shared cluster under a prefix of this test's own.
    static func cache(_ prefix: String, url: String? = nil) throws -> RedisCache {
        var configuration = try RedisCache.Configuration(url: url ?? RedisClusterServer.shared().url)
        configuration.keyPrefix = prefix
        // Generous: the tests check who produces, not how fast Redis answers beside renders.
        configuration.timeout = .seconds(3)
        return RedisCache(configuration: configuration)
    }

    static func coalescer(_ cache: RedisCache, _ prefix: String, leaseTime: Duration = .seconds(5), renew: Duration = .milliseconds(1500)) -> FleetCoalescer {
        FleetCoalescer(
            cache: cache,
            configuration: .init(lease: .init(keyPrefix: prefix + "lease:", leaseTime: leaseTime), renewInterval: renew, pollInterval: .milliseconds(50)))
    }

    /// `coalescer.value(for:…)` with the cache as the place values are kept, counting productions.
    static func value(
        _ key: String, _ coalescer: FleetCoalescer, _ cache: RedisCache, produced: Locked<Int>, takes: Duration = .milliseconds(300)
    ) async -> (Data, FleetCoalescer.Source) {
        await coalescer.value(
            for: key,
            lookup: { try? await cache.query(key: key, type: .disk)?.entry.data },
            produce: { () async -> Data in
                produced.withLock { $0 += 1 }
                try? await Task.sleep(for: takes)
                return Data("value of \(key)".utf8)
            },
            publish: { try? await cache.store(CacheEntry(data: $0), forKey: key, type: .disk) })
    }

    @Test func fourProcessesAskingTogetherProduceOnceAndAllGetTheValue() async throws {
        let prefix = "fc1-\(UUID().uuidString.prefix(8)):"
        let caches = try (0..<4).map { _ in try Self.cache(prefix) }
        for cache in caches { _ = try? await cache.query(key: "warm-up", type: .disk) }  // connected and mapped first
        let produced = Locked(0)
        let outcomes = await withTaskGroup(of: (Data, FleetCoalescer.Source).self) { group in
            for cache in caches { group.addTask { await Self.value("k", Self.coalescer(cache, prefix), cache, produced: produced) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(produced.withLock { $0 } == 1)
        #expect(outcomes.allSatisfy { $0.0 == Data("value of k".utf8) })
        #expect(outcomes.filter { $0.1 == .produced }.count == 1 && outcomes.filter { $0.1 == .found }.count == 3, "\(outcomes.map(\.1))")
    }

    @Test func aDeadHoldersLeaseLapsesAndAWaiterTakesOver() async throws {
        let prefix = "fc2-\(UUID().uuidString.prefix(8)):"
        let cache = try Self.cache(prefix)
        // A holder that took the lease and died: it never renews nor releases it.
        let dead = RedisLease(cache: cache, configuration: .init(keyPrefix: prefix + "lease:", leaseTime: .seconds(2)), owner: "dead")
        guard case .acquired = await dead.acquire("k") else {
            Issue.record("the first holder did not get the lease")
            return
        }
        let coalescer = Self.coalescer(cache, prefix)
        #expect(await coalescer.leases.acquire("k") == .heldElsewhere)
        let clock = ContinuousClock()
        let start = clock.now
        let produced = Locked(0)
        let (data, source) = await Self.value("k", coalescer, cache, produced: produced, takes: .zero)
        let waited = clock.now - start
        #expect(source == .produced && data == Data("value of k".utf8) && produced.withLock { $0 } == 1)
        #expect(waited >= .seconds(1) && waited < .seconds(10), "took over after \(waited)")
    }

    @Test func aHolderRenewsItsLeaseWhileItWorksLongerThanTheLeaseTime() async throws {
        let prefix = "fc3-\(UUID().uuidString.prefix(8)):"
        let (first, second) = (try Self.cache(prefix), try Self.cache(prefix))
        let produced = Locked(0)
        // Work twice the lease time: without renewals the waiter would take over. (A 2 s lease: beside
        // the suite's renders a renewal may wait on a busy thread pool for a while.)
        let holder = Self.coalescer(first, prefix, leaseTime: .seconds(2), renew: .milliseconds(300))
        let working = Task { await Self.value("k", holder, first, produced: produced, takes: .seconds(4)) }
        for _ in 0..<500 where holder.leasesHeld == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(holder.leasesHeld == 1, "the holder took the lease")
        let waiter = await Self.value("k", Self.coalescer(second, prefix, leaseTime: .seconds(2)), second, produced: produced)
        #expect(await working.value.1 == .produced)
        #expect(waiter.1 == .found && produced.withLock { $0 } == 1)
    }

    @Test func anUnreachableServerMeansProducingAloneAtOnce() async throws {
        let refused = try RefusingPort()
        let cache = try Self.cache("fc4:", url: "redis+cluster://127.0.0.1:\(refused.port)")
        let produced = Locked(0)
        let clock = ContinuousClock()
        let start = clock.now
        let (_, source) = await Self.value("k", Self.coalescer(cache, "fc4:"), cache, produced: produced, takes: .zero)
        #expect(source == .producedAlone && produced.withLock { $0 } == 1)
        #expect(clock.now - start < .seconds(5))
    }

    @Test func imageManagerOnAClusterTierLosesNoLoadWhenAMasterIsKilled() async throws {
        let cluster = try RedisClusterServer()
        defer { cluster.stop() }
        let origin = try HTTPTestServer()
        defer { origin.stop() }
        origin.addFile("gray.png", data: try TestData.data("pngsuite/basn2c08.png"))
        var configuration = try RedisCache.Configuration(url: cluster.url)
        configuration.retryInterval = .milliseconds(50)
        let shared = RedisCache(configuration: configuration)
        // Each loader is a process of its own: its own memory tier (count 1, so hits come from the
        // cluster) in front of the one cluster tier.
        let managers = try (0..<8).map { _ in
            ImageManager(configuration: .init(
                cache: TieredCache(memory: MemoryCache(countLimit: 1), backing: shared),
                loaders: LoaderRegistry([try HTTPLoader()]), coders: CoderRegistry([PNGCoder()])))
        }
        let failures = Locked(0)
        let sharedHits = Locked(0)
        let master = try #require(cluster.masters().first)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, manager) in managers.enumerated() {
                group.addTask {
                    for round in 0..<150 {
                        let url = origin.url("/files/gray.png?n=\((index * 37 + round * 11) % 100)")
                        do {
                            let result = try await manager.image(for: url)
                            if result.isFromSharedCache { sharedHits.withLock { $0 += 1 } }
                            if result.image?.width != 32 { failures.withLock { $0 += 1 } }
                        } catch {
                            failures.withLock { $0 += 1 }
                        }
                        try await Task.sleep(for: .milliseconds(10))
                    }
                }
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(500))
                cluster.kill(port: master.port)
            }
            try await group.waitForAll()
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(sharedHits.withLock { $0 } > 0)
    }
}
