import ArgumentParser
import Foundation
import ImageProxyCore

/// The flags of the object store: where `s3://` sources (allowed by `--allow-origin s3://bucket/`)
/// and the result bucket (`--result-storage`) are read and written. Credentials come from the AWS
/// SDKs' chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, `~/.aws`, container and instance roles).
struct S3Options: ParsableArguments {
    @Option(help: "The endpoint of an S3-compatible store (http://127.0.0.1:7480); default AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else AWS (IMGPROXY_S3_ENDPOINT).")
    var s3Endpoint: String?

    @Option(help: "The region S3 requests are signed for; default AWS_REGION, the profile's, else us-east-1; a bucket elsewhere is retried where the store says (IMGPROXY_S3_REGION).")
    var s3Region: String?

    @Flag(help: "Name buckets in the host (bucket.endpoint) instead of the path, the default with --s3-endpoint (IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE=false).")
    var s3VirtualHost = false

    @Option(help: "Keep encoded results in a bucket, s3://bucket[/prefix], under names every instance computes alike: a fleet (and a CDN) shares them. A slow or failing bucket is a miss, never a failed request.")
    var resultStorage: String?

    func validate() throws {
        if let s3Endpoint {
            guard let url = URL(string: s3Endpoint), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
                throw ValidationError("--s3-endpoint \(s3Endpoint) is not an http(s) URL")
            }
        }
        if let resultStorage, !resultStorage.lowercased().hasPrefix("s3://") {
            throw ValidationError("--result-storage \(resultStorage) is not s3://bucket[/prefix]")
        }
    }

    /// The store settings these flags give.
    var settings: ProxyS3Settings {
        var settings = ProxyS3Settings()
        settings.endpoint = s3Endpoint.flatMap(URL.init(string:))
        settings.region = s3Region
        settings.virtualHost = s3VirtualHost
        settings.resultStorage = resultStorage
        return settings
    }
}
