import Foundation
import ImageKernelTestSupport
import Testing

/// The fleet against nginx's rate limiter (`limit_req`, 200 r/s, 429 with `Retry-After: 1` beyond),
/// and on Redis Cluster.
extension QueueCLITests {
    /// nginx's access log as (seconds, status) pairs.
    private func origin(_ nginx: NginxServer) -> [(time: Double, status: Int)] {
        nginx.accessLog().compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let time = Double(parts[0]), let status = Int(parts[1]) else { return nil }
            return (time, status)
        }
    }

    private func rateLimitedOrigin(_ files: [(name: String, data: Data)]) throws -> NginxServer {
        let limits = BulkOrigin.rateLimited(rate: 200, burst: 20, retryAfter: 1)
        return try NginxServer(tls: false, files: Dictionary(uniqueKeysWithValues: files.map { ($0.name, $0.data) }),
                               locations: limits.locations, http: limits.http, logFormat: "$msec $status")
    }

    @Test(.enabled(if: NginxServer.isAvailable, "needs nginx"))
    func threeWorkersWarmTheTierWithTenThousandURLsWithinTheOriginsRateBound() throws {
        let count = 10_000
        let redis = try RedisServer()
        defer { redis.stop() }
        let files = try QueueFixtures.jpegs(count)
        let nginx = try rateLimitedOrigin(files)
        defer { nginx.stop() }
        let dir = try QueueFixtures.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let urls = files.map { nginx.url("/\($0.name)").absoluteString }
        _ = try CLI.run(["queue", "push", "bulk", "--redis", redis.url, "--from", try QueueFixtures.list(urls, in: dir)])
        let workers = try (0..<3).map {
            try QueueWorkerProcess(["bulk", "--redis", redis.url, "--cache-dir", dir.appendingPathComponent("w\($0)").path, "--until-empty"])
        }
        let outputs = workers.map { $0.wait(within: .seconds(240)) }
        for output in outputs { #expect(output.status == 0, "\(output.stderr.suffix(2000))") }
        let stats = try QueueFixtures.stats("bulk", redis: redis.url)
        #expect(stats["done"] == count && stats["dead"] == 0 && stats["waiting"] == 0 && stats["in_flight"] == 0, "\(stats)")
        #expect(QueueFixtures.tierEntries(redis) == count, "every URL is in the shared tier")
        let log = origin(nginx)
        let served = log.filter { $0.status == 200 }, refused = log.filter { $0.status == 429 }
        let seconds = (served.map(\.time).max() ?? 0) - (log.map(\.time).min() ?? 0)
        let bound = Double(count - 20) / 200
        print("queue fleet: \(count) URLs, \(log.count) origin requests (\(String(format: "%.3f", Double(log.count) / Double(count)))x), \(refused.count) refused, \(String(format: "%.1f", seconds)) s against a bound of \(String(format: "%.1f", bound)) s (\(String(format: "%.3f", seconds / bound))x)")
        #expect(Double(log.count) <= 1.05 * Double(count), "origin requests: \(log.count)")
        // A loose bound, not a speed figure (the ratio above is printed for that): three workers
        // that did not share the rate, or stalled on Retry-After, take twice the bound or more.
        // 1.1x failed once at 1.001x on a clean-clone CI run, one late 429 at the end.
        #expect(seconds <= 1.5 * bound, "the three together within 1.5x of the rate bound: \(seconds) s")
    }

    /// Shared politeness: the three workers together are refused no more often than one `prefetch`
    /// on the same list and the same origin (each counted in the origin's log). The fleet starts
    /// with one request in flight, holds under the rate it was refused at and reserves again the
    /// starts a cut made too early; one `prefetch` is refused at its start and again as it probes.
    @Test(.enabled(if: NginxServer.isAvailable, "needs nginx"))
    func threeWorkersTogetherAreRefusedNoMoreOftenThanOnePrefetchOnTheSameList() throws {
        let count = 1_000
        let files = try QueueFixtures.jpegs(count)
        let dir = try QueueFixtures.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let prefetchRefusals: Int
        do {
            let nginx = try rateLimitedOrigin(files)
            defer { nginx.stop() }
            let list = try QueueFixtures.list(files.map { nginx.url("/\($0.name)").absoluteString }, in: dir)
            let output = try CLI.run(["prefetch", "--cache-dir", dir.appendingPathComponent("p").path, "--from", list])
            #expect(output.status == 0, "\(output.stderr)")
            prefetchRefusals = origin(nginx).filter { $0.status == 429 }.count
        }
        let redis = try RedisServer()
        defer { redis.stop() }
        let nginx = try rateLimitedOrigin(files)
        defer { nginx.stop() }
        _ = try CLI.run(["queue", "push", "polite", "--redis", redis.url, "--from",
                         try QueueFixtures.list(files.map { nginx.url("/\($0.name)").absoluteString }, in: dir)])
        let workers = try (0..<3).map {
            try QueueWorkerProcess(["polite", "--redis", redis.url, "--cache-dir", dir.appendingPathComponent("w\($0)").path, "--until-empty"])
        }
        for output in workers.map({ $0.wait() }) { #expect(output.status == 0, "\(output.stderr.suffix(2000))") }
        let fleetRefusals = origin(nginx).filter { $0.status == 429 }.count
        print("queue politeness: \(count) URLs at 200 r/s: one prefetch refused \(prefetchRefusals) times, three workers \(fleetRefusals)")
        #expect(try QueueFixtures.stats("polite", redis: redis.url)["done"] == count)
        // One run against one run of small counts (1–5 each in the runs measured, the fleet at or
        // below prefetch in every one): a margin of 3 for a run's luck, far below the 11–35 the
        // fleet was refused before it shared its ceiling.
        #expect(fleetRefusals <= prefetchRefusals + 3, "three workers: \(fleetRefusals) refusals, one prefetch: \(prefetchRefusals)")
    }

    @Test func onRedisClusterThePartitionsSpreadOverTheMastersAndWorkersFinish() throws {
        let cluster = try RedisClusterServer()
        defer { cluster.stop() }
        let server = try HTTPTestServer()
        defer { server.stop() }
        let files = try QueueFixtures.jpegs(100)
        for file in files { server.addFile(file.name, data: file.data) }
        let dir = try QueueFixtures.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = cluster.url
        let urls = files.map { server.url("/files/\($0.name)").absoluteString }
        let pushed = try CLI.run(["queue", "push", "fleet", "--redis", url, "--from", try QueueFixtures.list(urls, in: dir)])
        #expect(pushed.lines.dropFirst().first?.prefix(3) == ["100", "0", "8"], "\(pushed.stdout)\(pushed.stderr)")
        let workers = try (0..<2).map { try QueueWorkerProcess(["fleet", "--redis", url, "--cache-dir", dir.appendingPathComponent("w\($0)").path, "--until-empty"]) }
        for output in workers.map({ $0.wait() }) { #expect(output.status == 0, "\(output.stderr)") }
        let stats = try QueueFixtures.stats("fleet", redis: url)
        #expect(stats["done"] == 100 && stats["waiting"] == 0 && stats["in_flight"] == 0 && stats["partitions"] == 8, "\(stats)")
        let holding = cluster.masters().filter { !cluster.cli($0.port, ["--scan", "--pattern", "imagekernel:queue:*:stats"]).isEmpty }
        #expect(holding.count >= 2, "the partitions live on several masters")
        let fetched = try CLI.run(["fetch", urls[7], "--shared-cache", url, "--cache-dir", dir.appendingPathComponent("other").path])
        #expect(fetched.lines.dropFirst().first?[1] == "shared", "\(fetched.stdout)\(fetched.stderr)")
    }
}
