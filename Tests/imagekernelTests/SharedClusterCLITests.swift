import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

/// `--shared-cache redis+cluster://…`: two processes share a Redis Cluster tier as they share one server.
@Suite("imagekernel with a shared Redis Cluster tier", .serialized)
struct SharedClusterCLITests {
    @Test func aSecondProcessIsServedByTheClusterTier() throws {
        let cluster = try RedisClusterServer()
        let (origin, nginx) = try SharedCacheCLITests.nginxOrigin()
        defer { nginx.stop() }
        let dir = try SharedCacheCLITests.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let list = dir.appendingPathComponent("list.txt")
        try origin.urls.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let shared = ["--shared-cache", cluster.url, "--shared-cache-timeout", SharedCacheCLITests.timeout]

        let first = try CLI.run(["prefetch", "--from", list.path, "--cache-dir", dir.appendingPathComponent("first").path] + shared)
        #expect(first.status == 0, "\(first.stderr)")
        let requestsAfterFirst = origin.imageRequests
        let keys = cluster.masters().map { Int(cluster.cli($0.port, ["DBSIZE"])) ?? 0 }
        #expect(keys.reduce(0, +) == origin.files.count && keys.allSatisfy { $0 > 0 }, "\(keys)")

        let out = dir.appendingPathComponent("out")
        let second = try CLI.run(["fetch", "--cache-dir", dir.appendingPathComponent("second").path, "--out", out.path] + shared + origin.urls)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(origin.imageRequests == requestsAfterFirst, "the origin saw requests from the second process")
        let types = second.lines.dropFirst().map { $0.count > 1 ? $0[1] : "" }
        #expect(types.count == origin.files.count && types.allSatisfy { $0 == "shared" }, "\(Set(types))")
        SharedCacheCLITests.expectByteExact(out, origin)
    }

    @Test func aMalformedClusterURLIsRefusedUpFront() throws {
        let run = try CLI.run(["fetch", "--shared-cache", "redis+cluster://h1:7000,,h2:7001", "https://example.com/a.jpg"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--shared-cache") && run.stderr.contains("Redis Cluster URL"), "\(run.stderr)")
    }
}
