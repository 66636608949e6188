import Foundation
import ImageProxyCore
import Testing

/// The S3 side of the configuration, without a store: bucket allow-lists, the result bucket's
/// URL, and imgproxy's `IMGPROXY_*S3*` settings.
@Suite("image-proxy S3 configuration")
struct ProxyS3ConfigurationTests {
    @Test func anAllowedBucketIsMatchedExactly() throws {
        for allowed in ["s3://src/", "s3://src"] {
            let policy = try OriginPolicy(allowedPrefixes: [allowed, "https://img.test/"])
            #expect(policy.allowsS3)
            #expect(try policy.check(URL(string: "s3://src/photo.jpg")!).isEmpty, "no address to pin for a bucket")
            #expect(try policy.check(URL(string: "s3://src/a/b%20c.jpg?versionId=1")!).isEmpty)
            for refused in ["s3://srcx/photo.jpg", "s3://sr/photo.jpg", "s3://SRC/photo.jpg", "s3://src/../srcx/photo.jpg",
                            "s3://src/%2e%2e/srcx/photo.jpg", "s3://user@src/photo.jpg", "s3://src:9000/photo.jpg", "http://src/photo.jpg"] {
                let error = #expect(throws: ProxyError.self, "\(allowed) must not allow \(refused)") { try policy.check(URL(string: refused)!) }
                #expect(error?.status == 403 && error?.code == "origin_not_allowed")
            }
        }
        let keys = try OriginPolicy(allowedPrefixes: ["s3://src/public/"])
        try keys.check(URL(string: "s3://src/public/a.jpg")!)
        #expect(throws: ProxyError.self) { try keys.check(URL(string: "s3://src/private/a.jpg")!) }
        #expect(try OriginPolicy(allowedPrefixes: ["https://img.test/"]).allowsS3 == false)
        #expect(throws: ProxyError.self) { try OriginPolicy(allowedPrefixes: ["s3:///"]) }
    }

    @Test func theResultBucketURLGivesABucketAndAPrefix() {
        func place(_ text: String) -> String? { ProxyS3Settings.bucketAndPrefix(text).map { "\($0.bucket)|\($0.prefix)" } }
        #expect(place("s3://results/p") == "results|p/")
        #expect(place("s3://results/a/b/") == "results|a/b/")
        #expect(place("s3://results") == "results|")
        #expect(place("S3://results/") == "results|")
        for bad in ["http://results/p", "s3:///p", "s3://res ults/p", "s3://results:9/p", "s3://results/p?x=1", "results/p"] {
            #expect(ProxyS3Settings.bucketAndPrefix(bad) == nil, "\(bad)")
        }
    }

    @Test func s3FlagsComeFromOurPrefix() throws {
        let settings = try ProxyEnvironment.settings(
            environment: ["IMAGE_PROXY_S3_ENDPOINT": "http://127.0.0.1:7480", "IMAGE_PROXY_S3_VIRTUAL_HOST": "true",
                          "IMAGE_PROXY_RESULT_STORAGE": "s3://results/p", "IMAGE_PROXY_S3_REGION": "eu-west-1"],
            commandLine: [])
        #expect(settings.arguments == [
            "--s3-endpoint", "http://127.0.0.1:7480", "--s3-region", "eu-west-1", "--s3-virtual-host", "--result-storage", "s3://results/p",
        ])
    }

    @Test func imgproxyReadsS3SourcesOnlyWithUseS3() throws {
        let base = [
            "IMGPROXY_ALLOWED_SOURCES": "https://img.test/,s3://listed/", "IMGPROXY_S3_ALLOWED_BUCKETS": "src, other",
            "IMGPROXY_S3_ENDPOINT": "http://127.0.0.1:7480", "IMGPROXY_S3_REGION": "eu-west-1", "IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE": "false",
        ]
        let off = try ProxyEnvironment.settings(environment: base, commandLine: ["--compat", "imgproxy"])
        #expect(off.arguments == [
            "--allow-origin", "https://img.test/", "--s3-endpoint", "http://127.0.0.1:7480", "--s3-region", "eu-west-1", "--s3-virtual-host",
        ], "without IMGPROXY_USE_S3 no bucket is allowed")
        #expect(off.notes == ["IMGPROXY_S3_ALLOWED_BUCKETS: ignored: IMGPROXY_USE_S3 is not true"])

        var on = base
        on["IMGPROXY_USE_S3"] = "true"
        on["IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE"] = "true"
        let settings = try ProxyEnvironment.settings(environment: on, commandLine: ["--compat", "imgproxy"])
        #expect(settings.arguments == [
            "--allow-origin", "https://img.test/", "--allow-origin", "s3://listed/", "--allow-origin", "s3://src/", "--allow-origin", "s3://other/",
            "--s3-endpoint", "http://127.0.0.1:7480", "--s3-region", "eu-west-1",
        ])
        #expect(settings.notes.isEmpty)

        let none = try ProxyEnvironment.settings(environment: ["IMGPROXY_USE_S3": "1", "IMGPROXY_S3_DENIED_BUCKETS": "x"], commandLine: ["--compat", "imgproxy"])
        #expect(none.arguments.isEmpty)
        #expect(none.notes.map { String($0.prefix { $0 != ":" }) }.sorted() == ["IMGPROXY_S3_DENIED_BUCKETS", "IMGPROXY_USE_S3"])
        let wildcard = #expect(throws: ProxyError.self) {
            try ProxyEnvironment.settings(environment: ["IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ALLOWED_BUCKETS": "img-*"], commandLine: ["--compat", "imgproxy"])
        }
        #expect(wildcard?.message.contains("IMGPROXY_S3_ALLOWED_BUCKETS") == true)
    }
}
