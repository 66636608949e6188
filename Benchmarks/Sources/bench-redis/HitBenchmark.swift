import BenchSupport
import CacheRedis
import Foundation
import ImageKernel

/// Hits of one 50 KB entry: ours through RedisCache, theirs through redis-benchmark.
struct HitBenchmark {
    let redis: Redis
    let clients: Int
    let requests: Int
    let rounds: Int
    /// Connections in our pool (the in-flight count is `clients` either way).
    let connections: Int
    static let size = 51200

    func run() async throws {
        // redis-benchmark's GET reads `key:__rand_int__`; its SET test with -d stores a value of that size there.
        _ = try redis.run("redis-benchmark", ["-t", "set", "-d", "\(Self.size)", "-n", "1", "-q"])
        var configuration = try RedisCache.Configuration(url: redis.url)
        configuration.connections = connections
        configuration.keyPrefix = "bench:"
        let cache = RedisCache(configuration: configuration)
        let value = Data((0..<Self.size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try await cache.store(CacheEntry(data: value), forKey: "https://origin/hit.jpg", type: .all)

        var (ourLatency, theirLatency, ourRate, theirRate) = ([Double](), [Double](), [Double](), [Double]())
        for _ in 0..<rounds {
            ourLatency.append(try await latency(cache, expected: value))
            theirLatency.append(try benchmark(clients: 1, requests: requests / 4).p50)
            ourRate.append(try await rate(cache, expected: value))
            theirRate.append(try benchmark(clients: clients, requests: requests).rps)
        }
        print("50 KB hits, \(rounds) rounds (medians), one redis-server on 127.0.0.1")
        report("hit p50 latency, 1 in flight (ms)", ours: Measure.median(ourLatency) * 1000, baseline: Measure.median(theirLatency), unit: "ms")
        report("hits per second, \(clients) in flight (\(connections) conns)", ours: Measure.median(ourRate), baseline: Measure.median(theirRate),
               unit: "/s", higherIsBetter: true, goal: "goal >= 0.8x")
    }

    /// Median seconds of one query, one at a time.
    private func latency(_ cache: RedisCache, expected: Data) async throws -> Double {
        var samples: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<(requests / 4) {
            let start = clock.now
            let hit = try await cache.query(key: "https://origin/hit.jpg", type: .all)
            samples.append(Measure.seconds(clock.now - start))
            guard hit?.entry.data?.count == expected.count else { throw BenchError("a hit went missing") }
        }
        return Measure.median(samples)
    }

    /// Queries per second with `clients` tasks.
    private func rate(_ cache: RedisCache, expected: Data) async throws -> Double {
        try await Measure.rate(clients: clients, perTask: requests / clients) { _, _ in
            (try? await cache.query(key: "https://origin/hit.jpg", type: .all))?.entry.data?.count == expected.count
        }
    }

    /// redis-benchmark's GET rate and p50 latency (ms).
    private func benchmark(clients: Int, requests: Int) throws -> (rps: Double, p50: Double) {
        try Redis.benchmarkGET(port: redis.port, ["-d", "\(Self.size)", "-n", "\(requests)", "-c", "\(clients)"])
    }
}
