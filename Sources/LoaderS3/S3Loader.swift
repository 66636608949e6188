import Foundation
import ImageKernel
import LoaderHTTP

/// An ``ImageKernel/ImageLoader`` for `s3://bucket/key` on Amazon S3 and S3-compatible stores
/// (Ceph RADOS Gateway, MinIO, …).
///
/// Each load is signed with Signature V4 (``S3Signer``) using credentials from
/// ``Configuration/credentials`` (the AWS SDKs' chain by default) and downloaded by a
/// ``LoaderHTTP/HTTPLoader``: one libcurl multi handle, streaming with progress, same-request
/// coalescing, priorities, conditional requests (a cached ETag answered by 304 gives a
/// ``ImageKernel/LoadResult`` with `notModified`) and ranges (a `Range` request header).
/// `?versionId=` reads one version of the object.
///
/// Errors are ``ImageKernel/ImageKernelError``s at stage `.load`, plugin `"LoaderS3"`, with the
/// store's error in ``ImageKernel/ImageKernelError/s3Error``: `NoSuchKey`, `NoSuchBucket` are
/// `notFound`; `AccessDenied`, `SignatureDoesNotMatch`, `InvalidAccessKeyId` are
/// `permissionDenied` (status 403); `SlowDown` and 5xx are transient `httpStatus`; transport
/// failures keep LoaderHTTP's codes and transience. A bucket in another region is retried once in
/// the region the store names.
public final class S3Loader: ImageLoader {
    /// How the loader names itself in errors: `"LoaderS3"`.
    public static let pluginName = "LoaderS3"
    /// `"LoaderS3"`.
    public var name: String { Self.pluginName }
    /// The settings this loader was created with.
    public let configuration: Configuration
    /// The endpoint and addressing in use.
    public let endpoint: S3Endpoint
    private let defaultRegion: String
    private let credentials: any S3CredentialsProvider
    private let http: HTTPLoader
    private let bucketRegions = Locked<[String: String]>([:])

    /// Creates a loader (and its HTTP driver thread).
    /// - Throws: ``ImageKernel/ImageKernelError`` when the HTTP loader cannot start.
    public init(configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        endpoint = configuration.resolvedEndpoint
        defaultRegion = configuration.resolvedRegion
        credentials = configuration.credentials ?? S3CredentialChain.standard(environment: configuration.environment)
        var http = configuration.http
        // Every status reaches us with its body: S3 explains failures in XML.
        http.acceptableStatusCodes = Set(200...599)
        self.http = try HTTPLoader(configuration: http)
    }

    /// True for `s3://` URLs.
    public func canLoad(_ url: URL) -> Bool { url.scheme?.lowercased() == "s3" }

    /// The region requests for `bucket` are signed for (the configured one, or where the store said the bucket is).
    public func region(for bucket: String) -> String { bucketRegions.withLock { $0[bucket] } ?? defaultRegion }

    /// Loads the object. `progress` is called on the HTTP loader's driver thread.
    public func load(
        _ request: ImageRequest, options: LoaderOptions, context: ImageContext,
        progress: @escaping @Sendable (LoadProgress) -> Void
    ) async throws(ImageKernelError) -> LoadResult {
        let location = try S3Location(url: request.url)
        guard let credentials = try await credentials.credentials() else {
            throw .s3(.permissionDenied, "no S3 credentials")
        }
        var retriedRegion = false
        // A region retry starts a second response: its progress is passed on only where it goes
        // past what the first one reported, so `received` never decreases, and without chunks
        // (a progressive decoder must not see the first response's bytes or miss the second's).
        let reported = Locked<(last: Int64, retried: Bool)>((-1, false))
        let monotonic: @Sendable (LoadProgress) -> Void = { update in
            let (isNew, retried) = reported.withLock { state -> (Bool, Bool) in
                guard update.received > state.last else { return (false, state.retried) }
                state.last = update.received
                return (true, state.retried)
            }
            guard isNew else { return }
            progress(retried ? LoadProgress(received: update.received, expected: update.expected) : update)
        }
        while true {
            let region = region(for: location.bucket)
            let url = endpoint.requestURL(
                bucket: location.bucket, key: location.key,
                query: location.versionID.map { "versionId=\(S3URIEncoding.encode($0))" }, region: region)
            var headers = request.headers
            for (name, value) in S3Signer(credentials: credentials, region: region).signedHeaders(method: "GET", url: url) {
                headers[name] = value
            }
            let outgoing = ImageRequest(url: url, headers: headers, cachedValidators: request.cachedValidators)
            let result: LoadResult
            do {
                result = try await http.load(outgoing, options: options, context: context, progress: monotonic)
            } catch {
                throw Self.rebrand(error)
            }
            let status = result.statusCode ?? 0
            if result.notModified || (200...299).contains(status) {
                return LoadResult(data: result.data, url: request.url, statusCode: status, headers: result.headers, notModified: result.notModified)
            }
            let failure = S3ErrorResponse(status: status, body: result.data, headers: result.headers)
            if !retriedRegion, status == 301 || status == 400, let other = failure.region, !other.isEmpty, other != region {
                bucketRegions.withLock { $0[location.bucket] = other }
                reported.withLock { $0.retried = true }
                retriedRegion = true
                continue
            }
            throw failure.kernelError(for: request.url, headers: result.headers)
        }
    }

    /// Cancels every queued and running download.
    public func cancelAllDownloads() async { await http.cancelAllDownloads() }

    /// Stops the HTTP driver thread; later loads fail with `cancelled`.
    public func shutdown() { http.shutdown() }

    /// LoaderHTTP's transport errors, named as ours (codes and transience kept).
    private static func rebrand(_ error: ImageKernelError) -> ImageKernelError {
        var error = error
        error.plugin = pluginName
        return error
    }
}
