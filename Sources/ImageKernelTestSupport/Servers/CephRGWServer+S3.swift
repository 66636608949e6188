import Foundation
import ImageKernel
import LoaderS3

extension CephRGWServer {
    /// A client for this gateway, signing with ``credentials`` (or `credentials`) through LoaderS3's signer.
    public func client(credentials: S3Credentials? = nil, addressing: S3Endpoint.Addressing = .path) -> S3Client {
        S3Client(
            endpoint: S3Endpoint(url: addressing == .path ? endpoint : virtualHostEndpoint, addressing: addressing),
            region: "us-east-1", credentials: StaticS3Credentials(credentials ?? self.credentials))
    }

    /// Creates a bucket (fine if it exists).
    public func createBucket(_ name: String) async throws {
        try await client().createBucket(name)
    }

    /// Stores `data` under `key`; returns the answer's headers (`etag`, `x-amz-version-id`).
    @discardableResult
    public func put(bucket: String, key: String, data: Data, headers: [String: String] = [:]) async throws -> [String: String] {
        try await client().putObject(bucket: bucket, key: key, data: data, headers: headers)
    }

    /// Turns versioning on for a bucket.
    public func enableVersioning(_ bucket: String) async throws {
        try await client().enableVersioning(bucket)
    }

    /// A fresh bucket with a unique name (`prefix-XXXXXXXX`).
    public func makeBucket(_ prefix: String = "test") async throws -> String {
        let name = "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
        try await createBucket(name)
        return name
    }
}
