@testable import CacheRedis
import CacheDisk
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// The tier on a real 3-master/3-replica cluster: keys spread over every master, slots agree
/// with the server's, replicas answer reads, `clear` reaches every master, and a `TieredCache`
/// with the cluster as its shared tier serves another process's entries.
@Suite(.serialized) struct RealClusterTests {
    @Test func entriesSpreadOverEveryMasterAndComeBackWhole() async throws {
        let cluster = try RedisClusterServer()
        let cache = try makeCache(on: cluster)
        for index in 0..<300 {
            try await cache.store(CacheEntry(data: payload(index, count: 5000 + index)), forKey: "img-\(index)", type: .all)
        }
        for index in 0..<300 {
            #expect(try await cache.query(key: "img-\(index)", type: .all)?.entry.data == payload(index, count: 5000 + index))
        }
        let masters = cluster.masters()
        #expect(masters.count == 3)
        let sizes = masters.map { Int(cluster.cli($0.port, ["DBSIZE"])) ?? 0 }
        #expect(sizes.allSatisfy { $0 > 50 } && sizes.reduce(0, +) == 300, "\(sizes)")
        // Our slots are the server's.
        for index in stride(from: 0, to: 300, by: 37) {
            let key = String(decoding: cache.naming.redisKey(for: "img-\(index)"), as: UTF8.self)
            #expect(cluster.cli(masters[0].port, ["CLUSTER", "KEYSLOT", key]) == "\(HashSlot.of(Data(key.utf8)))")
        }
        #expect(await cache.contains(key: "img-1", type: .all) == .disk)
        try await cache.remove(key: "img-1", type: .all)
        #expect(try await cache.query(key: "img-1", type: .all) == nil)
        try await cache.clear(type: .all)
        #expect(masters.map { cluster.cli($0.port, ["DBSIZE"]) } == ["0", "0", "0"])
    }

    @Test func replicasAnswerReadsWhenAsked() async throws {
        let cluster = try RedisClusterServer()
        let writer = try makeCache(on: cluster)
        let reader = try makeCache(on: cluster) {
            $0.keyPrefix = writer.configuration.keyPrefix
            $0.readsFromReplicas = true
        }
        for index in 0..<60 { try await writer.store(CacheEntry(data: payload(index)), forKey: "k\(index)", type: .all) }
        let before = cluster.masters().map { Int(cluster.info($0.port, "keyspace_hits") ?? "") ?? 0 }
        var hits = 0
        for _ in 0..<20 where hits < 60 {  // replication is asynchronous: a bounded wait for the last writes
            hits = 0
            for index in 0..<60 where try await reader.query(key: "k\(index)", type: .all)?.entry.data == payload(index) { hits += 1 }
        }
        #expect(hits == 60)
        let after = cluster.masters().map { Int(cluster.info($0.port, "keyspace_hits") ?? "") ?? 0 }
        #expect(after == before, "the masters served none of the reads")
    }

    @Test func aTieredCacheWithAClusterTierServesAnotherProcessesEntries() async throws {
        let cluster = try RedisClusterServer()
        let prefix = "stack-\(UUID().uuidString):"
        let directory = TemporaryDirectory("cluster-stack")
        func stack(_ name: String) throws -> TieredCache {
            let shared = try makeCache(on: cluster) { $0.keyPrefix = prefix }
            return TieredCache(memory: MemoryCache(), backing: DiskCache(directory: directory.child(name)), lowerTiers: [shared])
        }
        let first = try stack("first")
        let second = try stack("second")
        let validators = CacheValidators(etag: "\"v1\"")
        try await first.store(CacheEntry(data: payload(1, count: 20_000), validators: validators), forKey: "https://o/1.jpg", type: .all)
        let shared = try #require(try await second.query(key: "https://o/1.jpg", type: .all))
        #expect(shared.isShared && shared.entry.data == payload(1, count: 20_000) && shared.entry.validators == validators)
        let local = try #require(try await second.query(key: "https://o/1.jpg", type: .all))
        #expect(!local.isShared && local.entry.data == payload(1, count: 20_000))
        // With the whole cluster gone, the local tiers still answer and a new key is a miss.
        cluster.stop()
        #expect(try await second.query(key: "https://o/1.jpg", type: .all)?.entry.data == payload(1, count: 20_000))
        #expect(try await second.query(key: "https://o/2.jpg", type: .all) == nil)
    }
}
