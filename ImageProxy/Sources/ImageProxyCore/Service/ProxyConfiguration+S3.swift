import Foundation
import LoaderS3

/// Where the service reaches object stores: for `s3://` sources (allowed as origins are,
/// `--allow-origin s3://bucket/`) and for the result bucket (``resultStorage``).
///
/// Credentials come from the AWS SDKs' chain as ``LoaderS3/S3Loader`` reads it (the
/// environment's `AWS_ACCESS_KEY_ID`…, the shared files, the container and instance endpoints).
public struct ProxyS3Settings: Sendable {
    /// The endpoint of an S3-compatible store (`http://127.0.0.1:7480`); nil reads
    /// `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL`, else AWS.
    public var endpoint: URL?
    /// The region to sign for; nil reads `AWS_REGION`, the profile, else `us-east-1`.
    public var region: String?
    /// Name buckets in the host (`bucket.endpoint`) instead of the path, which is the default
    /// with a given endpoint (as imgproxy's `IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE=true`).
    public var virtualHost: Bool = false
    /// `s3://bucket/prefix`: keep encoded results in this bucket, under `prefix/` and the digest
    /// of the result's key (``ImageProxyService/diskKey(forResult:)``), so every instance with the
    /// same configuration finds what another stored. Nil keeps none.
    public var resultStorage: String?
    /// The bound on a result lookup or store in the bucket: past it a lookup is a miss (the result
    /// is rendered) and a store is dropped.
    public var resultStorageTimeout: Duration = .seconds(2)
    /// Results being written to the bucket at once; more are not kept there (logged), so a slow
    /// bucket never piles up memory.
    public var maxPendingResultStores: Int = 32
    /// The environment the store's defaults and credentials are read from (the process's by default).
    public var environment: [String: String] = ProcessInfo.processInfo.environment

    public init() {}

    /// The loader settings these give: endpoint, region, addressing and environment.
    public var loaderConfiguration: S3Loader.Configuration {
        var configuration = S3Loader.Configuration(environment: environment)
        configuration.endpoint = endpoint
        configuration.region = region
        if virtualHost { configuration.addressing = .virtualHost }
        return configuration
    }

    /// The bucket and the object-name prefix of a ``resultStorage`` URL: `("results", "p/")` for
    /// `s3://results/p`, `("results", "")` for `s3://results`; nil for anything but
    /// `s3://bucket[/prefix]` (a port, user info or query, a bucket name S3 would not take).
    public static func bucketAndPrefix(_ text: String) -> (bucket: String, prefix: String)? {
        guard let components = URLComponents(string: text), components.scheme?.lowercased() == "s3", let bucket = components.host,
              !bucket.isEmpty, bucket.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }),
              components.port == nil, components.user == nil, components.query == nil
        else { return nil }
        let trimmed = components.path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        return (bucket, trimmed.isEmpty ? "" : trimmed + "/")
    }
}
