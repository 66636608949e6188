import Foundation
import ImageKernelTestSupport

/// The Ceph RADOS Gateway the S3 tests share (one per test process: it takes seconds to start),
/// and what an `image-proxy` process needs to reach it.
enum RGW {
    /// The shared gateway, running (a test that stopped it starts it again when it ends, and this
    /// starts it in case that test failed first).
    static func server() throws -> CephRGWServer {
        let server = try CephRGWServer.shared()
        try server.startGateway()
        return server
    }

    /// The credentials (through the environment, as an operator gives them) and nothing from
    /// this machine's own AWS files.
    static func environment(_ server: CephRGWServer, secret: String? = nil) -> [String: String] {
        ["AWS_ACCESS_KEY_ID": server.accessKey, "AWS_SECRET_ACCESS_KEY": secret ?? server.secretKey, "AWS_REGION": "us-east-1",
         "AWS_CONFIG_FILE": "/nonexistent/config", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent/credentials"]
    }

    /// `--s3-endpoint` for the gateway (path-style).
    static func arguments(_ server: CephRGWServer) -> [String] { ["--s3-endpoint", server.endpoint.absoluteString] }

    /// A fresh bucket `prefix-XXXXXXXX` holding the sample photo as `photo.jpg`, and a second one
    /// whose name extends the first (`…x`) holding it too.
    static func buckets(_ server: CephRGWServer, _ prefix: String) async throws -> (allowed: String, longer: String) {
        let photo = try Origin.example("photo.jpg")
        let allowed = try await server.makeBucket(prefix)
        let longer = allowed + "x"
        try await server.createBucket(longer)
        for bucket in [allowed, longer] { try await server.put(bucket: bucket, key: "photo.jpg", data: photo) }
        return (allowed, longer)
    }

    static func source(_ bucket: String, _ key: String) -> URL { URL(string: "s3://\(bucket)/\(key)")! }
}
