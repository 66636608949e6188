import BenchSupport
import CacheRedis
import Foundation
import ImageKernel
import ImageKernelTestSupport

/// 50 KB hits through the cluster tier, redis-benchmark --cluster and the single-node tier, in the same rounds.
struct ClusterHitBenchmark {
    let cluster: RedisClusterServer
    let single: Redis
    let clients: Int
    let keys: Int
    let requests: Int
    let rounds: Int
    static let size = 51200

    func run() async throws {
        let value = Data((0..<Self.size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let clusterTier = try tier(url: cluster.url)
        let singleTier = try tier(url: single.url)
        for tier in [clusterTier, singleTier] {
            for index in 0..<keys { try await tier.store(CacheEntry(data: value), forKey: key(index), type: .all) }
        }
        // redis-benchmark's GET reads `key:{tag}:__rand_int__` on each master; its SET with -d stores a value of that size there.
        _ = try Redis.run("redis-benchmark", port: cluster.ports[0], ["--cluster", "-t", "set", "-d", "\(Self.size)", "-n", "100", "-q"])

        _ = try await rate(clusterTier)  // warm-up: slot map, connections
        _ = try await rate(singleTier)
        var (ours, tool, singleNode) = ([Double](), [Double](), [Double]())
        for _ in 0..<rounds {
            ours.append(try await rate(clusterTier))
            tool.append(try Redis.benchmarkGET(port: cluster.ports[0], ["--cluster", "-d", "\(Self.size)", "-n", "\(requests)", "-c", "\(clients)"]).rps)
            singleNode.append(try await rate(singleTier))
        }
        print("50 KB hits, \(clients) in flight, \(rounds) rounds (medians); a 3-master/3-replica cluster and one redis-server on 127.0.0.1")
        report("cluster tier vs redis-benchmark --cluster GET", ours: Measure.median(ours), baseline: Measure.median(tool),
               unit: "/s", higherIsBetter: true, goal: "goal >= 0.8x")
        report("cluster tier vs single-node tier", ours: Measure.median(ours), baseline: Measure.median(singleNode),
               unit: "/s", higherIsBetter: true, goal: "goal >= 0.9x")
    }

    private func tier(url: String) throws -> RedisCache {
        var configuration = try RedisCache.Configuration(url: url)
        configuration.keyPrefix = "bench:"
        configuration.timeout = .seconds(1)
        return RedisCache(configuration: configuration)
    }

    private func key(_ index: Int) -> String { "https://origin/hit-\(index).jpg" }

    /// Queries per second with `clients` tasks, each walking the keys from its own offset.
    private func rate(_ tier: RedisCache) async throws -> Double {
        let (keys, size) = (keys, Self.size)
        return try await Measure.rate(clients: clients, perTask: requests / clients) { client, step in
            (try? await tier.query(key: "https://origin/hit-\((client * 7 + step) % keys).jpg", type: .all))?.entry.data?.count == size
        }
    }
}
