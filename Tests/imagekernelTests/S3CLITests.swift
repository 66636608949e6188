import Foundation
import ImageKernelTestSupport
import Testing

/// `info`, `fetch` and `prefetch` read `s3://` sources from a real RADOS Gateway, with the
/// endpoint and credentials the AWS SDKs read from the environment.
@Suite("imagekernel with s3:// sources", .serialized, .enabled(if: CephRGWServer.isAvailable))
struct S3CLITests {
    static func environment(_ server: CephRGWServer) -> [String: String] {
        ["AWS_ENDPOINT_URL_S3": server.endpoint.absoluteString, "AWS_ACCESS_KEY_ID": server.accessKey,
         "AWS_SECRET_ACCESS_KEY": server.secretKey, "AWS_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"]
    }

    @Test func infoFetchAndPrefetchReadBucketObjects() async throws {
        let server = try CephRGWServer.shared()
        let bucket = try await server.makeBucket("cli")
        // Three PNGs that our coders decode (the reference corpus holds a few they refuse).
        let candidates = try Array(TestData.referencePaths { $0.hasSuffix(".png") }.prefix(12))
        let decodable = try CLI.run(["info"] + candidates.map { TestData.url($0).path }).lines.dropFirst()
            .filter { $0.count > 1 && $0[1] != "error" }.map { $0[0] }
        let paths = candidates.filter { decodable.contains(TestData.url($0).path) }.prefix(3).map { $0 }
        try #require(paths.count == 3)
        var urls: [String] = []
        for (index, path) in paths.enumerated() {
            let key = "images/\(index) with space.png"
            try await server.put(bucket: bucket, key: key, data: try Data(contentsOf: TestData.url(path)))
            urls.append("s3://\(bucket)/images/\(index)%20with%20space.png")
        }
        let env = Self.environment(server)
        // `info` of the object equals `info` of the file, source column aside.
        let local = try CLI.run(["info", TestData.url(paths[0]).path])
        let remote = try CLI.run(["info", urls[0], "s3://\(bucket)/missing.png"], environment: env)
        #expect(remote.status != 0, "a missing key fails the run")
        #expect(Array(remote.lines[1].dropFirst()) == Array(local.lines[1].dropFirst()), "\(remote.stderr)")
        #expect(Array(remote.lines[2].prefix(3)) == ["s3://\(bucket)/missing.png", "error", "not_found"])

        let out = FileManager.default.temporaryDirectory.appendingPathComponent("ik-s3-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let fetch = try CLI.run(["fetch", urls[1], "--cache-dir", out.appendingPathComponent("cache").path], environment: env)
        #expect(fetch.status == 0, "\(fetch.stdout) \(fetch.stderr)")
        #expect(fetch.lines.dropFirst().first?.first == urls[1])

        let list = out.appendingPathComponent("list.txt")
        try urls.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let prefetch = try CLI.run(["prefetch", "--from", list.path, "--cache-dir", out.appendingPathComponent("cache2").path], environment: env)
        #expect(prefetch.status == 0, "\(prefetch.stdout) \(prefetch.stderr)")
        #expect(Array(prefetch.lines[1].prefix(2)) == ["3", "0"])
    }
}
