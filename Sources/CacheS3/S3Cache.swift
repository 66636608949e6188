import Digests
import Foundation
import ImageKernel
import LoaderS3

/// An ``ImageKernel/ImageCache`` on an S3 bucket: the tier a fleet and a CDN share.
///
/// Entries are objects named `prefix + SHA-256(key)` holding the original bytes, with their
/// validators in user metadata (`x-amz-meta-ik-etag`, `x-amz-meta-ik-last-modified`). The store
/// may speed a load up, never stop one (as `CacheRedis`): every request is bounded by
/// ``Configuration/timeout``; a query that fails or times out is a miss, `contains` answers
/// `.none`; stores, removes and clears throw typed errors (stage `.cache`, plugin `"CacheS3"`),
/// which the manager logs and goes on. Hits report source `.disk` and
/// ``ImageKernel/CacheQueryResult/isShared``.
public final class S3Cache: ImageCache {
    /// How the cache names itself in errors: `"CacheS3"`.
    public static let pluginName = "CacheS3"
    /// `"CacheS3"`.
    public var name: String { Self.pluginName }
    /// The settings this cache was created with.
    public let configuration: Configuration
    private let client: S3Client

    /// A cache on the configured bucket. Nothing is sent until the first operation.
    public init(configuration: Configuration) {
        self.configuration = configuration
        client = S3Client(configuration: configuration.s3, timeout: configuration.timeout)
    }

    /// The object name for a cache key.
    public func objectKey(for key: String) -> String {
        configuration.prefix + SHA256.hash(utf8: key).hex
    }

    /// The stored bytes and validators; nil on a miss, for types without the disk tier, for an
    /// entry older than ``Configuration/timeToLive``, and when the store fails or is slow.
    /// - Throws: `cancelled` when the task was cancelled.
    public func query(key: String, type: ImageCacheType) async throws(ImageKernelError) -> CacheQueryResult? {
        try ImageKernelError.checkCancellation(.cache, plugin: Self.pluginName)
        guard type.includesDisk else { return nil }
        let response = try? await client.send(
            "GET", bucket: configuration.bucket, key: objectKey(for: key), maxResponseBody: configuration.maxObjectSize)
        try ImageKernelError.checkCancellation(.cache, plugin: Self.pluginName)
        guard let response, response.status == 200, !isExpired(response.headers) else { return nil }
        let validators = Self.validators(from: response.headers)
        return CacheQueryResult(entry: CacheEntry(data: response.body, validators: validators), source: .disk, isShared: true)
    }

    /// Stores the entry's bytes (an image-only entry through ``Configuration/imageEncoder``) and
    /// validators for `.disk` and `.all`.
    /// - Throws: ``ImageKernel/ImageKernelError`` at stage `.cache`: `unsupported` for an
    ///   image-only entry without an encoder, `tooLarge` above ``Configuration/maxObjectSize``,
    ///   transport codes (`timeout`, `cannotConnect`, …) and the store's refusals
    ///   (`permissionDenied`, `httpStatus`). The object stored before stays.
    public func store(_ entry: CacheEntry, forKey key: String, type: ImageCacheType) async throws(ImageKernelError) {
        guard type.includesDisk else { return }
        let bytes = try entry.persistentBytes(forKey: key, plugin: Self.pluginName, place: "in the bucket", encode: configuration.imageEncoder)
        guard bytes.count <= configuration.maxObjectSize else {
            throw Self.error(.tooLarge, "\(bytes.count) bytes exceed maxObjectSize \(configuration.maxObjectSize); the stored object was kept")
        }
        var headers: [String: String] = ["Content-Type": "application/octet-stream"]
        if let storageClass = configuration.storageClass { headers["x-amz-storage-class"] = storageClass }
        if let etag = entry.validators?.etag { headers["x-amz-meta-ik-etag"] = Self.metadataValue(etag) }
        if let lastModified = entry.validators?.lastModified { headers["x-amz-meta-ik-last-modified"] = Self.metadataValue(lastModified) }
        try await perform("PUT", key: key, headers: headers, body: bytes)
    }

    /// Deletes the object for `key` (`.disk`, `.all`).
    public func remove(key: String, type: ImageCacheType) async throws(ImageKernelError) {
        guard type.includesDisk else { return }
        try await perform("DELETE", key: key, accepting: [404])
    }

    /// `.disk` when the bucket holds a live object for `key`; `.none` otherwise, also when the store fails.
    public func contains(key: String, type: ImageCacheType) async -> ImageCacheType {
        guard type.includesDisk,
              let response = try? await client.send("HEAD", bucket: configuration.bucket, key: objectKey(for: key)),
              response.status == 200, !isExpired(response.headers) else { return .none }
        return .disk
    }

    /// Deletes every object under ``Configuration/prefix`` (`.disk`, `.all`); others stay.
    public func clear(type: ImageCacheType) async throws(ImageKernelError) {
        guard type.includesDisk else { return }
        let keys: [String]
        do { keys = try await client.listKeys(bucket: configuration.bucket, prefix: configuration.prefix) } catch { throw Self.rebrand(error) }
        for object in keys {
            do { try await client.deleteObject(bucket: configuration.bucket, key: object) } catch { throw Self.rebrand(error) }
        }
    }

    private func perform(
        _ method: String, key: String, headers: [String: String] = [:], body: Data? = nil, accepting: Set<Int> = []
    ) async throws(ImageKernelError) {
        let object = objectKey(for: key)
        let response: S3Client.Response
        do {
            response = try await client.send(method, bucket: configuration.bucket, key: object, headers: headers, body: body)
        } catch {
            throw Self.rebrand(error)
        }
        guard response.isSuccess || accepting.contains(response.status) else {
            throw Self.rebrand(response.error(for: S3Location(bucket: configuration.bucket, key: object).url))
        }
    }

    private func isExpired(_ headers: [String: String]) -> Bool {
        guard let ttl = configuration.timeToLive, let text = headers["last-modified"], let modified = Self.httpDate(text) else { return false }
        let seconds = Double(ttl.components.seconds) + Double(ttl.components.attoseconds) / 1e18
        return Date().timeIntervalSince(modified) > seconds
    }

    static func validators(from headers: [String: String]) -> CacheValidators? {
        let etag = headers["x-amz-meta-ik-etag"]?.removingPercentEncoding
        let lastModified = headers["x-amz-meta-ik-last-modified"]?.removingPercentEncoding
        return etag == nil && lastModified == nil ? nil : CacheValidators(etag: etag, lastModified: lastModified)
    }

    /// Metadata travels in headers: percent-encode all but printable ASCII.
    static func metadataValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: " !\"#$&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~")) ?? ""
    }

    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }

    static func error(_ code: ImageKernelError.Code, _ message: String) -> ImageKernelError {
        ImageKernelError(stage: .cache, plugin: pluginName, code: code, message: message)
    }

    /// LoaderS3's errors (stage `.load`) as this cache's (stage `.cache`), code, status and cause kept.
    static func rebrand(_ error: ImageKernelError) -> ImageKernelError {
        var error = error
        error.stage = .cache
        error.plugin = pluginName
        return error
    }
}
