import Foundation
import ImageKernel

/// Signed S3 requests beyond downloads: put, head, delete, list, bucket creation and versioning.
///
/// For `CacheS3` and for tests and tools that fill buckets. Each call is one blocking libcurl
/// exchange on a worker thread, bounded by ``timeout``; idle handles are kept so connections are
/// reused. Statuses are returned, not thrown (``Response/error(for:)`` types a failure); transport
/// failures throw ``ImageKernel/ImageKernelError`` (`timeout`, `cannotConnect`, …).
public struct S3Client: Sendable {
    /// An answer of the store.
    public struct Response: Sendable {
        /// The HTTP status.
        public var status: Int
        /// The headers, names lower-cased.
        public var headers: [String: String]
        /// The body (empty for HEAD).
        public var body: Data

        /// Whether the status is 2xx.
        public var isSuccess: Bool { (200...299).contains(status) }

        /// The typed error for a failed answer to a request for `url`.
        public func error(for url: URL) -> ImageKernelError {
            S3ErrorResponse(status: status, body: body, headers: headers).kernelError(for: url, headers: headers)
        }
    }

    /// The endpoint and addressing.
    public let endpoint: S3Endpoint
    /// The region requests are signed for.
    public let region: String
    /// Where credentials come from.
    public let credentials: any S3CredentialsProvider
    /// The bound on each request (connecting included).
    public let timeout: Duration
    private let exchange: CurlExchange

    /// A client; `timeout` bounds every request.
    public init(endpoint: S3Endpoint, region: String, credentials: any S3CredentialsProvider, timeout: Duration = .seconds(10), maxIdleConnections: Int = 8) {
        self.endpoint = endpoint
        self.region = region
        self.credentials = credentials
        self.timeout = timeout
        exchange = CurlExchange(maxIdleHandles: maxIdleConnections)
    }

    /// A client with an ``S3Loader``'s endpoint, region and credentials settings.
    public init(configuration: S3Loader.Configuration, timeout: Duration = .seconds(10)) {
        self.init(
            endpoint: configuration.resolvedEndpoint, region: configuration.resolvedRegion,
            credentials: configuration.credentials ?? S3CredentialChain.standard(environment: configuration.environment), timeout: timeout)
    }

    /// Sends one signed request. `query` is already encoded (`versioning`, `list-type=2&prefix=a`).
    public func send(
        _ method: String, bucket: String, key: String = "", query: String? = nil, headers: [String: String] = [:],
        body: Data? = nil, maxResponseBody: Int = 16 << 20
    ) async throws(ImageKernelError) -> Response {
        guard let credentials = try await credentials.credentials() else { throw .s3(.permissionDenied, "no S3 credentials") }
        let url = endpoint.requestURL(bucket: bucket, key: key, query: query, region: region)
        let payloadHash = body.map(S3Signer.payloadHash) ?? S3Signer.emptyPayloadHash
        var all = headers
        let signer = S3Signer(credentials: credentials, region: region)
        for (name, value) in signer.signedHeaders(method: method, url: url, headers: headers, payloadHash: payloadHash) { all[name] = value }
        let answer = try await exchange.perform(method: method, url: url, headers: all, body: body, timeout: timeout, maxBody: maxResponseBody)
        return Response(status: answer.status, headers: answer.headers, body: answer.body)
    }

    /// Creates a bucket (an existing bucket of ours is fine).
    public func createBucket(_ bucket: String) async throws(ImageKernelError) {
        let response = try await send("PUT", bucket: bucket, body: Data())
        guard response.isSuccess || S3ErrorResponse(status: response.status, body: response.body).code == "BucketAlreadyOwnedByYou" else {
            throw response.error(for: endpoint.requestURL(bucket: bucket, key: "", region: region))
        }
    }

    /// Turns versioning on for a bucket.
    public func enableVersioning(_ bucket: String) async throws(ImageKernelError) {
        let body = Data(#"<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Enabled</Status></VersioningConfiguration>"#.utf8)
        let response = try await send("PUT", bucket: bucket, query: "versioning=", body: body)
        guard response.isSuccess else { throw response.error(for: endpoint.requestURL(bucket: bucket, key: "", region: region)) }
    }

    /// Stores an object; returns the answer's headers (`etag`, `x-amz-version-id`).
    @discardableResult
    public func putObject(bucket: String, key: String, data: Data, headers: [String: String] = [:]) async throws(ImageKernelError) -> [String: String] {
        let response = try await send("PUT", bucket: bucket, key: key, headers: headers, body: data)
        guard response.isSuccess else { throw response.error(for: S3Location(bucket: bucket, key: key).url) }
        return response.headers
    }

    /// Deletes an object (a missing one is fine, as S3 says).
    public func deleteObject(bucket: String, key: String) async throws(ImageKernelError) {
        let response = try await send("DELETE", bucket: bucket, key: key)
        guard response.isSuccess || response.status == 404 else { throw response.error(for: S3Location(bucket: bucket, key: key).url) }
    }

    /// The keys under `prefix` (all pages of ListObjectsV2).
    public func listKeys(bucket: String, prefix: String) async throws(ImageKernelError) -> [String] {
        var keys: [String] = []
        var token: String?
        repeat {
            var query = "list-type=2&prefix=\(S3URIEncoding.encode(prefix))"
            if let token { query += "&continuation-token=\(S3URIEncoding.encode(token))" }
            let response = try await send("GET", bucket: bucket, query: query)
            guard response.isSuccess else { throw response.error(for: endpoint.requestURL(bucket: bucket, key: "", region: region)) }
            let text = String(decoding: response.body, as: UTF8.self)
            keys += Self.elements("Key", in: text)
            token = Self.elements("IsTruncated", in: text).first == "true" ? Self.elements("NextContinuationToken", in: text).first : nil
        } while token != nil
        return keys
    }

    static func elements(_ name: String, in text: String) -> [String] {
        var found: [String] = []
        var rest = text[...]
        while let open = rest.range(of: "<\(name)>"), let close = rest.range(of: "</\(name)>", range: open.upperBound..<rest.endIndex) {
            found.append(String(rest[open.upperBound..<close.lowerBound])
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
                .replacingOccurrences(of: "&amp;", with: "&"))
            rest = rest[close.upperBound...]
        }
        return found
    }
}
