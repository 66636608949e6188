import Foundation
import ImageKernelTestSupport
import Testing

/// `s3://` sources and the result bucket against a real S3 server (Ceph RADOS Gateway), through
/// the built `image-proxy`. Serialized: one test stops the shared gateway.
@Suite("image-proxy on S3 (Ceph RGW)", .serialized, .enabled(if: CephRGWServer.isAvailable))
struct ProxyS3Tests {
    @Test func aSourceInAnAllowedBucketIsRenderedAndNoOtherBucketIs() async throws {
        let server = try RGW.server()
        let (src, srcx) = try await RGW.buckets(server, "src")
        let proxy = try ProxyProcess(
            ["--allow-origin", "s3://\(src)", "--allow-origin", "http://127.0.0.1:9/"] + RGW.arguments(server), environment: RGW.environment(server))
        let rendered = try await HTTP.get(proxy.url(Paths.plain(RGW.source(src, "photo.jpg"), spec: "resize:fit:64:64")))
        #expect(rendered.status == 200)
        #expect(rendered.header("content-type") == "image/jpeg")
        let size = try JPEGSize(rendered.body)
        #expect(max(size.0, size.1) == 64, "\(size)")

        let longer = try await HTTP.get(proxy.url(Paths.plain(RGW.source(srcx, "photo.jpg"))))
        let http = try await HTTP.get(proxy.url(Paths.plain(URL(string: "http://127.0.0.2:9/photo.jpg")!)))
        #expect(longer.status == 403 && longer.json["error"] == "origin_not_allowed", "s3://\(src) must not allow \(srcx)")
        #expect(longer.status == http.status && longer.json["error"] == http.json["error"], "refused as any other origin")

        let missing = try await HTTP.get(proxy.url(Paths.plain(RGW.source(src, "no-such-key.jpg"))))
        #expect(missing.status == 404 && missing.json["error"] == "not_found", "\(String(decoding: missing.body, as: UTF8.self))")
    }

    @Test func aStoreRefusingTheCredentialsIsAForbiddenSource() async throws {
        let server = try RGW.server()
        let (src, _) = try await RGW.buckets(server, "denied")
        let proxy = try ProxyProcess(
            ["--allow-origin", "s3://\(src)/"] + RGW.arguments(server), environment: RGW.environment(server, secret: "not-the-secret"))
        let refused = try await HTTP.get(proxy.url(Paths.plain(RGW.source(src, "photo.jpg"))))
        #expect(refused.status == 403 && refused.json["error"] == "permission_denied", "\(String(decoding: refused.body, as: UTF8.self))")
    }

    @Test func imgproxyModeReadsBucketsWithUseS3AndItsAllowList() async throws {
        let server = try RGW.server()
        let (src, srcx) = try await RGW.buckets(server, "compat")
        var environment = RGW.environment(server)
        environment["IMGPROXY_USE_S3"] = "true"
        environment["IMGPROXY_S3_ENDPOINT"] = server.endpoint.absoluteString
        environment["IMGPROXY_S3_ALLOWED_BUCKETS"] = src
        environment["IMGPROXY_ALLOWED_SOURCES"] = "http://127.0.0.1:9/"
        let proxy = try ProxyProcess(["--compat", "imgproxy"], environment: environment)
        let rendered = try await HTTP.get(proxy.url(Paths.plain(RGW.source(src, "photo.jpg"), spec: "rs:fit:64:64")))
        #expect(rendered.status == 200)
        #expect(max(try JPEGSize(rendered.body).0, try JPEGSize(rendered.body).1) == 64)
        let longer = try await HTTP.get(proxy.url(Paths.plain(RGW.source(srcx, "photo.jpg"))))
        let http = try await HTTP.get(proxy.url(Paths.plain(URL(string: "http://127.0.0.2:9/photo.jpg")!)))
        #expect(longer.status == 404 && String(decoding: longer.body, as: UTF8.self) == "Invalid source URL")
        #expect(longer.status == http.status && longer.body == http.body)
        let missing = try await HTTP.get(proxy.url(Paths.plain(RGW.source(src, "no-such-key.jpg"))))
        #expect(missing.status == 404 && String(decoding: missing.body, as: UTF8.self) == "Not Found")

        // Without IMGPROXY_USE_S3 the bucket is not allowed, whatever the lists say.
        environment["IMGPROXY_USE_S3"] = "false"
        environment["IMGPROXY_ALLOWED_SOURCES"] = "http://127.0.0.1:9/,s3://\(src)/"
        let off = try ProxyProcess(["--compat", "imgproxy"], environment: environment)
        let refused = try await HTTP.get(off.url(Paths.plain(RGW.source(src, "photo.jpg"))))
        #expect(refused.status == 404 && String(decoding: refused.body, as: UTF8.self) == "Invalid source URL")
    }

    @Test func aSecondInstanceAnswersFromTheResultBucketWithoutFetchingTheSource() async throws {
        let server = try RGW.server()
        let results = try await server.makeBucket("results")
        let origin = try HTTPTestServer()
        defer { origin.stop() }
        origin.addFile("photo.jpg", data: try Origin.example("photo.jpg"), etag: "\"v1\"")
        let arguments = ["--allow-origin", origin.baseURL.absoluteString + "/", "--result-storage", "s3://\(results)/p"] + RGW.arguments(server)
        let path = Paths.plain(origin.url("/files/photo.jpg"), spec: "resize:fill:120:80", format: "png")

        let first = try ProxyProcess(arguments, environment: RGW.environment(server))
        let clock = ContinuousClock()
        var rendered: HTTP.Response?
        let renderTime = try await clock.measure { rendered = try await HTTP.get(first.url(path)) }
        let answer = try #require(rendered)
        #expect(answer.status == 200 && origin.requestCount(path: "/files/photo.jpg") == 1)

        // The store runs after the answer: wait (bounded) for the object.
        let client = server.client()
        var keys: [String] = []
        for _ in 0..<250 where keys.isEmpty {
            keys = try await client.listKeys(bucket: results, prefix: "p/")
            if keys.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(keys.count == 1 && keys.first?.count == 2 + 64, "p/ and the result key's SHA-256: \(keys)")
        let head = try await client.send("HEAD", bucket: results, key: keys.first ?? "")
        #expect(head.headers["content-type"] == "image/png")

        let second = try ProxyProcess(arguments, environment: RGW.environment(server))
        var shared: HTTP.Response?
        let bucketTime = try await clock.measure { shared = try await HTTP.get(second.url(path)) }
        let fromBucket = try #require(shared)
        #expect(fromBucket.status == 200 && fromBucket.body == answer.body)
        #expect(fromBucket.header("etag") == answer.header("etag") && fromBucket.header("content-type") == "image/png")
        let fetches = origin.requestCount(path: "/files/photo.jpg") - 1
        #expect(fetches == 0, "the second instance fetched the source")
        let revalidated = try await HTTP.get(second.url(path), headers: ["If-None-Match": answer.header("etag") ?? ""])
        #expect(revalidated.status == 304)
        print("S3 result bucket: second instance's source fetches \(fetches); first answer (render) \(renderTime), from the bucket \(bucketTime)")
    }

    @Test func anUnreachableBucketIsAMissAndRequestsAreStillRendered() async throws {
        let server = try RGW.server()
        let results = try await server.makeBucket("down")
        let origin = try HTTPTestServer()
        defer { origin.stop() }
        origin.addFile("photo.jpg", data: try Origin.example("photo.jpg"))
        server.stopGateway()
        defer { try? server.startGateway() }
        let proxy = try ProxyProcess(
            ["--allow-origin", origin.baseURL.absoluteString + "/", "--result-storage", "s3://\(results)/p"] + RGW.arguments(server),
            environment: RGW.environment(server))
        for spec in ["resize:fit:100:100", "resize:fit:50:50"] {
            let response = try await HTTP.get(proxy.url(Paths.plain(origin.url("/files/photo.jpg"), spec: spec)))
            #expect(response.status == 200 && response.header("content-type") == "image/jpeg")
        }
        #expect(origin.requestCount(path: "/files/photo.jpg") == 1, "one source, two renders")
        let failures = proxy.log.components(separatedBy: "result bucket lookup failed").count - 1
        #expect(failures == 1, "after a failure the bucket is left alone for a while: \(proxy.log.suffix(2000))")
    }

    @Test func aBucketThatNeverAnswersIsAMissWithinItsBound() async throws {
        let hung = try SilentPort()
        let origin = try HTTPTestServer()
        defer { origin.stop() }
        origin.addFile("photo.jpg", data: try Origin.example("photo.jpg"))
        let proxy = try ProxyProcess(
            ["--allow-origin", origin.baseURL.absoluteString + "/", "--result-storage", "s3://results/p", "--s3-endpoint", hung.url("").absoluteString],
            environment: ["AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "us-east-1"])
        var answer: HTTP.Response?
        let elapsed = try await ContinuousClock().measure {
            answer = try await HTTP.get(proxy.url(Paths.plain(origin.url("/files/photo.jpg"), spec: "resize:fit:100:100")))
        }
        #expect(answer?.status == 200 && answer?.header("content-type") == "image/jpeg")
        #expect(origin.requestCount(path: "/files/photo.jpg") == 1)
        #expect(proxy.log.contains("result bucket lookup failed") && proxy.log.contains("timeout"), "\(proxy.log.suffix(2000))")
        print("S3 result bucket that never answers: request answered 200 in \(elapsed) (lookup bound 2 s)")
    }
}
