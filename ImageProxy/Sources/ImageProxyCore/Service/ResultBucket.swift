import Foundation
import ImageKernel
import LoaderS3
import Logging

/// Encoded results kept in an S3 bucket (`--result-storage s3://bucket/prefix`), the tier a fleet
/// of services and a CDN share.
///
/// An object is named `prefix/` + ``ImageProxyService/diskKey(forResult:)`` (the digest of the
/// signature-free result key, which every instance with the same configuration computes alike),
/// holds the encoded bytes with their `Content-Type` and `Cache-Control`, and the result's
/// `ETag` in `x-amz-meta-result-etag`. The bucket may speed an answer up, never stop one: a
/// lookup that fails, or takes longer than ``ProxyS3Settings/resultStorageTimeout``, is a miss;
/// stores run after the answer, at most ``ProxyS3Settings/maxPendingResultStores`` at once, and
/// one that fails is logged and dropped. After a transport failure (unreachable, timed out) the
/// bucket is left alone for ``pause``: lookups are misses at once and stores are skipped, so a
/// hung bucket costs one bounded wait per pause, not one per request.
final class ResultBucket: Sendable {
    /// The bucket.
    let bucket: String
    /// Prepended to every object name: empty, or ending in `/`.
    let prefix: String
    private let client: S3Client
    private let logger: Logger
    private let maxPending: Int
    private let maxBytes: Int
    private let cacheControl: String
    private let pending = Locked(0)
    /// Until when the bucket is left alone after a transport failure.
    private let pausedUntil = Locked<ContinuousClock.Instant?>(nil)

    /// How long the bucket is left alone after a transport failure.
    static let pause: Duration = .seconds(5)

    /// The metadata header that carries a result's ETag.
    static let etagHeader = "x-amz-meta-result-etag"

    /// A bucket store for `--result-storage` `url` (`s3://bucket` or `s3://bucket/prefix`).
    /// - Throws: ``ProxyError`` 500 `invalid_configuration` for anything else.
    init(url text: String, settings: ProxyS3Settings, maxBytes: Int, maxAge: Int, logger: Logger) throws(ProxyError) {
        guard let (bucket, prefix) = ProxyS3Settings.bucketAndPrefix(text) else {
            throw ProxyError(status: 500, code: "invalid_configuration", message: "--result-storage \(text.prefix(200)) is not s3://bucket[/prefix]")
        }
        self.bucket = bucket
        self.prefix = prefix
        self.logger = logger
        self.maxBytes = maxBytes
        maxPending = max(1, settings.maxPendingResultStores)
        cacheControl = "public, max-age=\(maxAge)"
        client = S3Client(configuration: settings.loaderConfiguration, timeout: settings.resultStorageTimeout)
    }

    /// The object name of the result `name` (its digest).
    func objectKey(_ name: String) -> String { prefix + name }

    /// The result stored under `name`; nil when there is none, and when the bucket fails or is slow (logged).
    func result(named name: String) async -> Rendered? {
        guard !isPaused else { return nil }
        let response: S3Client.Response
        do {
            response = try await client.send("GET", bucket: bucket, key: objectKey(name), maxResponseBody: maxBytes)
        } catch {
            failed(error)
            logger.warning("result bucket lookup failed", metadata: ["bucket": "\(bucket)", "error": "\(error)"])
            return nil
        }
        guard response.status == 200 else {
            if response.status != 404 {
                logger.warning("result bucket lookup failed", metadata: ["bucket": "\(bucket)", "status": "\(response.status)"])
            }
            return nil
        }
        let format = ImageFormat.sniff(response.body)
        let etag = response.headers[Self.etagHeader].flatMap { $0.hasPrefix("\"") ? $0 : nil }
            ?? ImageProxyService.etag(source: Digest.bytes(of: response.body), key: name, format: format)
        return Rendered(data: response.body, format: format, etag: etag)
    }

    /// Starts keeping `rendered` under `name` and returns at once; dropped (logged) when
    /// ``ProxyS3Settings/maxPendingResultStores`` stores are already running.
    func keep(_ rendered: Rendered, named name: String) {
        guard !isPaused else {
            logger.debug("result not kept in the bucket: it failed in the last \(Self.pause)", metadata: ["bucket": "\(bucket)"])
            return
        }
        let admitted = pending.withLock { count -> Bool in
            guard count < maxPending else { return false }
            count += 1
            return true
        }
        guard admitted else {
            logger.warning("result not kept in the bucket: too many stores running", metadata: ["bucket": "\(bucket)"])
            return
        }
        let headers = ["Content-Type": rendered.format.mediaType, "Cache-Control": cacheControl, Self.etagHeader: rendered.etag]
        Task {
            defer { self.pending.withLock { $0 -= 1 } }
            do throws(ImageKernelError) {
                try await self.client.putObject(bucket: self.bucket, key: self.objectKey(name), data: rendered.data, headers: headers)
            } catch {
                self.failed(error)
                self.logger.warning("result not kept in the bucket", metadata: ["bucket": "\(self.bucket)", "error": "\(error)"])
            }
        }
    }

    /// Whether the bucket is being left alone after a transport failure.
    private var isPaused: Bool {
        pausedUntil.withLock { until in until.map { ContinuousClock.now < $0 } ?? false }
    }

    /// Leaves the bucket alone for ``pause`` after a failure to reach it (an answer, even an
    /// error status, is no reason to).
    private func failed(_ error: ImageKernelError) {
        guard [.timeout, .cannotConnect, .connectionLost, .dnsFailure, .tls].contains(error.code) else { return }
        pausedUntil.withLock { $0 = ContinuousClock.now + Self.pause }
    }

    /// Stores still running.
    var pendingStores: Int { pending.withLock { $0 } }
}
