import Foundation
import ImageKernel
import LoaderHTTP

extension S3Loader {
    /// Everything an ``S3Loader`` does that callers may want to change. Fixed when the loader is created.
    public struct Configuration: Sendable {
        /// The region to sign for; nil reads `AWS_REGION`, then `AWS_DEFAULT_REGION`, then the
        /// profile's `region`, then `us-east-1`. A bucket found elsewhere (a 301 or 400 naming its
        /// region in `x-amz-bucket-region`) is retried there once and remembered.
        public var region: String?
        /// The endpoint; nil reads `AWS_ENDPOINT_URL_S3`, then `AWS_ENDPOINT_URL`, else AWS.
        /// A given endpoint means path-style addressing unless ``addressing`` says otherwise.
        public var endpoint: URL?
        /// Path-style or virtual-host; nil for the default (see ``S3Endpoint/addressing``).
        public var addressing: S3Endpoint.Addressing?
        /// Where credentials come from; nil for ``S3CredentialChain/standard(environment:)``.
        public var credentials: (any S3CredentialsProvider)?
        /// The settings of the ``LoaderHTTP/HTTPLoader`` that downloads objects (concurrency,
        /// priorities, timeout, `maxBodySize`, …). Its `acceptableStatusCodes` are the loader's
        /// own: S3's error bodies must be read to be typed.
        public var http: HTTPLoader.Configuration
        /// The environment the defaults above are read from (the process's by default).
        public var environment: [String: String]

        /// Defaults from the environment; `maxConcurrentDownloads` 8, bodies up to 256 MiB.
        public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
            self.environment = environment
            var http = HTTPLoader.Configuration()
            http.maxConcurrentDownloads = 8
            http.maxBodySize = 256 << 20
            http.headers = [:]
            self.http = http
        }

        /// The region after the defaults.
        public var resolvedRegion: String {
            if let region, !region.isEmpty { return region }
            for name in ["AWS_REGION", "AWS_DEFAULT_REGION"] {
                if let value = environment[name], !value.isEmpty { return value }
            }
            return ProfileS3Credentials(environment: environment).region() ?? "us-east-1"
        }

        /// The endpoint after the defaults.
        public var resolvedEndpoint: S3Endpoint {
            var url = endpoint
            if url == nil {
                for name in ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"] {
                    if let value = environment[name], !value.isEmpty, let parsed = URL(string: value) {
                        url = parsed
                        break
                    }
                }
            }
            return S3Endpoint(url: url, addressing: addressing)
        }
    }
}
