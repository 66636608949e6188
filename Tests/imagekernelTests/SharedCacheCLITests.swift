import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

/// `--shared-cache`: two processes with their own disk caches share one Redis tier.
@Suite("imagekernel with a shared Redis tier", .serialized)
struct SharedCacheCLITests {
    /// 200 distinct PNG and JPEG files from the test data that the CLI decodes (name → bytes).
    static func originFiles() throws -> [(name: String, data: Data)] {
        let paths = try TestData.referencePaths { $0.hasSuffix(".png") || $0.hasSuffix(".jpg") }
        // Pillow decodes a few files that our coders refuse; keep the first 200 that `info` decodes.
        let info = try CLI.run(["info"] + paths.prefix(260).map { TestData.url($0).path })
        let decodable = Set(info.lines.dropFirst().filter { $0.count > 1 && $0[1] != "error" }.map { $0[0] })
        return try paths.filter { decodable.contains(TestData.url($0).path) }.prefix(200).enumerated().map { index, path in
            ("\(index)-\((path as NSString).lastPathComponent)", try Data(contentsOf: TestData.url(path)))
        }
    }

    struct Origin {
        let files: [(name: String, data: Data)]
        let urls: [String]
        let requests: @Sendable () -> Int
        var imageRequests: Int { requests() }
    }

    /// nginx serving the 200 files.
    static func nginxOrigin() throws -> (Origin, NginxServer) {
        let files = try originFiles()
        let nginx = try NginxServer(tls: false, files: Dictionary(uniqueKeysWithValues: files.map { ($0.name, $0.data) }))
        return (Origin(files: files, urls: files.map { nginx.url("/\($0.name)").absoluteString }, requests: { nginx.accessLog().count }), nginx)
    }

    /// The test HTTP server serving the 200 files: the first 30 answer 40 ms late, the other 170
    /// wait behind the gate `later` until the test opens it. So a prefetch stores its first
    /// entries and then cannot finish until the test lets it, however fast or slow the machine.
    static func gatedOrigin() throws -> (Origin, HTTPTestServer) {
        let files = try originFiles()
        let server = try HTTPTestServer()
        for file in files { server.addFile(file.name, data: file.data) }
        let paths = files.enumerated().map { index, file in index < 30 ? "/files/\(file.name)" : "/gate/later/\(file.name)" }
        let urls = paths.enumerated().map { index, path in server.url(index < 30 ? path + "?delay=40" : path).absoluteString }
        return (Origin(files: files, urls: urls, requests: { paths.reduce(0) { $0 + server.requestCount(path: $1) } }), server)
    }

    /// Generous for debug builds on a loaded machine: these tests are about sharing, and a query
    /// that times out (50 ms by default) is a miss that would send a request to the origin.
    static let timeout = "2000"

    static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ik-shared-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Every written file equals the origin's bytes.
    static func expectByteExact(_ out: URL, _ origin: Origin) {
        let exact = origin.files.filter { (try? Data(contentsOf: out.appendingPathComponent($0.name))) == $0.data }.count
        #expect(exact == origin.files.count, "\(origin.files.count - exact) images differ from the origin")
    }

    @Test func aSecondProcessWithAnEmptyDiskIsServedByTheSharedTier() throws {
        let redis = try RedisServer()
        let (origin, nginx) = try Self.nginxOrigin()
        defer { nginx.stop() }
        #expect(origin.files.count == 200)
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let list = dir.appendingPathComponent("list.txt")
        try origin.urls.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)

        let first = try CLI.run(["prefetch", "--from", list.path, "--cache-dir", dir.appendingPathComponent("first").path, "--shared-cache", redis.url, "--shared-cache-timeout", Self.timeout])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.lines.dropFirst().first.map { Array($0.prefix(2)) } == ["200", "0"])
        let requestsAfterFirst = origin.imageRequests
        #expect(requestsAfterFirst == 200)
        #expect(redis.cli("DBSIZE") == "200")

        let out = dir.appendingPathComponent("out")
        let second = try CLI.run(
            ["fetch", "--cache-dir", dir.appendingPathComponent("second").path, "--shared-cache", redis.url, "--shared-cache-timeout", Self.timeout, "--out", out.path] + origin.urls)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(origin.imageRequests - requestsAfterFirst == 0, "the origin saw requests from the second process")
        let types = second.lines.dropFirst().map { $0.count > 1 ? $0[1] : "" }
        #expect(types.count == 200 && types.allSatisfy { $0 == "shared" }, "\(Set(types))")
        Self.expectByteExact(out, origin)

        // The shared hits landed on the second process's disk: a third run needs neither Redis nor the origin.
        redis.kill()
        let third = try CLI.run(["fetch", "--cache-dir", dir.appendingPathComponent("second").path, "--shared-cache", redis.url, "--shared-cache-timeout", Self.timeout] + origin.urls)
        #expect(third.status == 0)
        #expect(third.lines.dropFirst().allSatisfy { $0.count > 1 && $0[1] == "disk" })
        #expect(origin.imageRequests - requestsAfterFirst == 0)
    }

    @Test func redisKilledMidPrefetchStillCompletesFromTheOrigin() throws {
        let redis = try RedisServer()
        let (origin, server) = try Self.gatedOrigin()
        defer { server.stop() }
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let list = dir.appendingPathComponent("list.txt")
        try origin.urls.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let cacheDir = dir.appendingPathComponent("cache").path

        // Kill the server once the prefetch has stored some entries in it, then open the gate the
        // other 170 sources wait behind: the kill always lands while the prefetch runs. The poller
        // asks over a socket of its own and the kill does not wait for the process to be reaped:
        // in one CI run, a poller that ran redis-cli and waited for it was held until the tool
        // ended (nothing else fits the timings), and the gated sources timed out five times each.
        let killedAt = Locked<Int?>(nil)
        let killer = Thread {
            defer { server.openGate("later") }
            for _ in 0..<6000 {
                let size = redis.integer("DBSIZE") ?? 0
                if size >= 20 {
                    redis.kill()
                    killedAt.withLock { $0 = size }
                    return
                }
                usleep(10_000)
            }
        }
        killer.start()
        // No retries: a source that times out behind a gate that failed to open costs 15 s, not 78.
        let prefetch = try CLI.run(["prefetch", "--from", list.path, "--cache-dir", cacheDir, "--shared-cache", redis.url, "--shared-cache-timeout", Self.timeout, "--retries", "0"])
        #expect(prefetch.status == 0, "\(prefetch.stderr)")
        #expect(prefetch.lines.dropFirst().first.map { Array($0.prefix(2)) } == ["200", "0"])
        let stored = try #require(killedAt.withLock { $0 }, "the prefetch ended before Redis held 20 entries")
        #expect(stored < 200, "Redis was killed after the prefetch had stored everything")

        let out = dir.appendingPathComponent("out")
        let check = try CLI.run(["fetch", "--cache-dir", cacheDir, "--out", out.path] + origin.urls)
        #expect(check.status == 0)
        #expect(check.lines.dropFirst().allSatisfy { $0.count > 1 && $0[1] == "disk" }, "every prefetched image is on disk")
        Self.expectByteExact(out, origin)
    }
}
