import Foundation
import ImageKernelTestSupport
import Testing

/// `imagekernel queue`: workers on a real redis-server, loading from real origins. Serialized:
/// the workers' rates are measured at the origin, and neighbours would skew them.
@Suite("imagekernel queue", .serialized, .enabled(if: RedisServer.isAvailable, "needs redis-server"))
struct QueueCLITests {
    @Test func statsAndDeadPrintTheirHeadersForAnEmptyQueue() throws {
        let redis = try RedisServer()
        defer { redis.stop() }
        let stats = try CLI.run(["queue", "stats", "empty", "--redis", redis.url])
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.lines.first.map { Array($0.prefix(4)) } == ["waiting", "in_flight", "done", "dead"])
        #expect(stats.lines.dropFirst().first.map { Array($0.prefix(4)) } == ["0", "0", "0", "0"])
        let dead = try CLI.run(["queue", "dead", "empty", "--redis", redis.url])
        #expect(dead.lines == [["url", "deliveries", "error", "id", "partition"]])
        #expect(try CLI.run(["queue", "stats", "bad{name}", "--redis", redis.url]).status != 0, "braces would change the hash tag")
        #expect(try CLI.run(["queue", "work", "q", "--redis", redis.url, "--concurrency", "0"]).status != 0)
    }

    @Test func aWorkerStoresWhatPrefetchStoresAndSkipsWhatIsAlreadyStored() throws {
        let rig = try QueueRig(files: 20)
        let (redis, server, dir) = (rig.redis, rig.server, rig.dir)
        let urls = rig.urls()
        let pushed = try rig.push("warm", urls)
        #expect(pushed.lines.first == ["pushed", "invalid", "partitions", "seconds"])
        #expect(pushed.lines.dropFirst().first?.prefix(3) == ["20", "0", "1"], "\(pushed.stdout)\(pushed.stderr)")
        let work = QueueWorkerProcess.self
        let first = try work.init(["warm", "--redis", redis.url, "--cache-dir", dir.appendingPathComponent("a").path, "--until-empty"]).wait()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.lines.first == ["handled", "loaded", "already_stored", "failed", "dead", "duplicates", "seconds", "images_per_second"])
        #expect(first.lines.dropFirst().first?.prefix(3) == ["20", "20", "0"], "\(first.stdout)")
        #expect(QueueFixtures.tierEntries(redis) == 20)
        // Another machine (its own disk cache) is answered from the tier.
        let fetched = try CLI.run(["fetch", urls[3], "--shared-cache", redis.url, "--cache-dir", dir.appendingPathComponent("b").path])
        #expect(fetched.lines.dropFirst().first?[1] == "shared", "\(fetched.stdout)\(fetched.stderr)")
        // Pushed again: acknowledged without a load.
        try rig.push("warm", urls)
        let requests = server.requests.count
        let second = try work.init(["warm", "--redis", redis.url, "--cache-dir", dir.appendingPathComponent("c").path, "--until-empty"]).wait()
        #expect(second.lines.dropFirst().first?.prefix(3) == ["20", "0", "20"], "\(second.stdout)")
        #expect(server.requests.count == requests, "nothing was loaded again")
        let stats = try rig.stats("warm")
        #expect(stats["done"] == 40 && stats["loaded"] == 20 && stats["already_stored"] == 20 && stats["waiting"] == 0 && stats["in_flight"] == 0, "\(stats)")
    }

    @Test func anAlwaysFailingURLEndsDeadAfterNDeliveriesWithItsErrorAndCanBeRequeued() throws {
        let rig = try QueueRig(files: 20)
        let (redis, server) = (rig.redis, rig.server)
        server.addFile("noise.jpg", data: Data((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 131) }))
        let failing = [server.url("/status/500").absoluteString, server.url("/files/noise.jpg").absoluteString]
        try rig.push("dl", [failing[0]] + rig.urls() + [failing[1]])
        let worker = try rig.worker("dl", ["--retries", "0", "--max-deliveries", "3", "--claim-idle", "0.3"]).wait()
        #expect(worker.status == 0, "\(worker.stderr)")
        #expect(worker.lines.dropFirst().first.map { [$0[1], $0[3], $0[4]] } == ["20", "6", "2"], "loaded 20, failed 6 deliveries, 2 dead: \(worker.stdout)")
        #expect(server.requestCount(path: "/status/500") == 3, "three deliveries, no more")
        let stats = try rig.stats("dl")
        #expect(stats["done"] == 20 && stats["dead"] == 2 && stats["waiting"] == 0 && stats["in_flight"] == 0 && stats["failed_deliveries"] == 6, "\(stats)")
        let dead = try CLI.run(["queue", "dead", "dl", "--redis", redis.url])
        let rows = Dictionary(uniqueKeysWithValues: dead.lines.dropFirst().map { ($0[0], $0) })
        #expect(rows.count == 2, "\(dead.stdout)")
        #expect(rows[failing[0]]?[1] == "3" && rows[failing[0]]?[2].contains("HTTP 500") == true, "\(dead.stdout)")
        #expect(rows[failing[1]]?[1] == "3" && rows[failing[1]]?[2].hasPrefix("no_coder") == true, "\(dead.stdout)")
        let requeued = try CLI.run(["queue", "dead", "dl", "--redis", redis.url, "--requeue"])
        #expect(requeued.status == 0 && requeued.lines.count == 3)
        let after = try rig.stats("dl")
        #expect(after["dead"] == 0 && after["waiting"] == 2, "\(after)")
        #expect(try CLI.run(["queue", "dead", "dl", "--redis", redis.url]).lines.count == 1)
    }

    @Test func aWorkerKilledMidRunLosesNothingAndDuplicatesAreCounted() throws {
        let rig = try QueueRig(files: 300)
        let (redis, server) = (rig.redis, rig.server)
        try rig.push("kill", rig.urls("?delay=30"))
        let workers = try (0..<3).map { try rig.worker("kill", ["--concurrency", "4", "--claim-idle", "2", "--consumer", "w\($0)"]) }
        while server.requests.count < 60 { usleep(10_000) }
        workers[0].kill(SIGKILL)
        let outputs = workers.map { $0.wait() }
        #expect(outputs[0].status == SIGKILL + 128 || outputs[0].status == SIGKILL, "killed")
        for output in outputs.dropFirst() { #expect(output.status == 0, "\(output.stderr)") }
        let stats = try rig.stats("kill")
        #expect(stats["done"] == 300 && stats["waiting"] == 0 && stats["in_flight"] == 0 && stats["dead"] == 0, "none lost: \(stats)")
        #expect(QueueFixtures.tierEntries(redis) == 300)
        let loads = server.requests.count
        print("queue SIGKILL: 300 URLs, \(loads) origin requests, duplicates acknowledged twice: \(stats["duplicates"] ?? -1), entries taken over after the kill: \(loads - 300)")
        #expect(loads >= 300 && loads <= 300 + 4 * 2, "at most the killed worker's entries in hand were loaded twice: \(loads)")
    }

    @Test func workersReconnectAfterRedisRestartsFromItsAOFAndFinish() throws {
        let rig = try QueueRig(files: 300, redisArguments: ["--appendonly", "yes"])
        let (redis, server) = (rig.redis, rig.server)
        try rig.push("aof", rig.urls("?delay=30"))
        usleep(1_200_000) // the push reaches the AOF (fsync every second)
        let workers = try (0..<2).map { try rig.worker("aof", ["--concurrency", "4", "--claim-idle", "2", "--consumer", "r\($0)"]) }
        while server.requests.count < 80 { usleep(10_000) }
        try redis.restart()
        let outputs = workers.map { $0.wait() }
        for output in outputs { #expect(output.status == 0, "\(output.stderr)") }
        let stats = try rig.stats("aof")
        #expect(stats["done"] == 300 && stats["total"] == 300 && stats["waiting"] == 0 && stats["in_flight"] == 0 && stats["dead"] == 0, "\(stats)")
        #expect(QueueFixtures.tierEntries(redis) == 300)
        print("queue Redis restart: 300 URLs, \(server.requests.count) origin requests (\(server.requests.count - 300) done twice), duplicates \(stats["duplicates"] ?? -1), already stored \(stats["already_stored"] ?? -1)")
    }

    @Test func aLongRetryAfterGivenToOneWorkerPausesTheHostForAll() throws {
        let rig = try QueueRig(files: 40)
        let server = rig.server
        try rig.push("pause", [server.url("/flaky/1/\(rig.files[0].name)?status=429&Retry-After=5").absoluteString] + rig.urls("?delay=100").dropFirst())
        let workers = try (0..<3).map { try rig.worker("pause", ["--concurrency", "1", "--consumer", "p\($0)"]) }
        let outputs = workers.map { $0.wait() }
        for output in outputs { #expect(output.status == 0, "\(output.stderr)") }
        let requests = server.requests
        let refused = try #require(requests.first { $0.path.hasPrefix("/flaky/") })
        let during = requests.filter { $0.arrival > refused.arrival + .milliseconds(300) && $0.arrival < refused.arrival + .milliseconds(4_700) }
        let after = requests.filter { $0.arrival >= refused.arrival + .milliseconds(4_700) }
        #expect(during.isEmpty, "no worker sent the host anything during the pause: \(during.count)")
        #expect(after.count >= 20, "the three workers went on after it: \(after.count)")
        #expect(try rig.stats("pause")["done"] == 40)
    }

    @Test func sigtermFinishesTheEntriesInHandThenStops() throws {
        let rig = try QueueRig(files: 20)
        try rig.push("term", rig.urls("?delay=600"))
        let worker = try QueueWorkerProcess(["term", "--redis", rig.redis.url, "--cache-dir", rig.dir.path, "--concurrency", "2"])
        while rig.server.requests.count < 2 { usleep(10_000) }
        worker.kill(SIGTERM)
        let output = worker.wait(within: .seconds(20))
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.lines.dropFirst().first?.prefix(2) == ["2", "2"], "the two entries in hand were finished: \(output.stdout)")
        let stats = try rig.stats("term")
        #expect(stats["done"] == 2 && stats["in_flight"] == 0 && stats["waiting"] == 18, "\(stats)")
    }
}
