import Foundation

/// Loads the bytes of an image from a source: network, file system, a database, memory…
///
/// ## Implementation requirements
/// - **Thread safety.** A loader is shared and `Sendable`; ``load(_:options:context:progress:)``
///   is called from many tasks at once.
/// - **Cancellation.** Cancelling the calling task must stop the work promptly and make `load`
///   throw an ``ImageKernelError`` with code ``ImageKernelError/Code/cancelled``: `load` throws
///   only `ImageKernelError`, so use ``ImageKernelError/checkCancellation(_:plugin:)`` where
///   `Task.checkCancellation()` would throw a `CancellationError`. Never return data after the
///   caller's task was cancelled.
/// - **Exactly once.** `load` returns or throws exactly once; `progress` is never called after it
///   returned or threw.
/// - **Progress.** `received` never decreases; `expected` is the total when known, else −1. When
///   `options` contains ``LoaderOptions/progressiveLoad``, each new chunk is passed in
///   ``LoadProgress/chunk`` in order, so a progressive decoder can run.
/// - **Errors.** Throw ``ImageKernelError`` (the only error type `load` can throw) with stage
///   `.load` and ``name`` as plugin; cancellation is code `cancelled`. Set `isTransient` for
///   failures worth retrying later (timeouts, DNS, cannot connect, connection lost, cancelled,
///   HTTP 408/429/5xx). The manager blacklists the other failures. A failure that follows a
///   response (an unacceptable HTTP status) carries its status in
///   ``ImageKernelError/httpStatus`` and its headers in ``ImageKernelError/responseHeaders``.
/// - **Limits.** Refuse sources larger than the loader's configured maximum with `tooLarge`.
public protocol ImageLoader: Sendable {
    /// A short name for errors and logs, e.g. `"LoaderFile"`.
    var name: String { get }
    /// Whether this loader handles the URL (by scheme, host, …). Cheap; no I/O.
    func canLoad(_ url: URL) -> Bool
    /// Loads the bytes the request names.
    /// - Throws: ``ImageKernelError`` at stage `.load`; code `cancelled` when the task was cancelled.
    func load(
        _ request: ImageRequest, options: LoaderOptions, context: ImageContext,
        progress: @escaping @Sendable (LoadProgress) -> Void
    ) async throws(ImageKernelError) -> LoadResult
}

/// What a loader is asked to fetch.
public struct ImageRequest: Sendable, Hashable {
    public var url: URL
    /// Extra request headers (HTTP loaders); others ignore them.
    public var headers: [String: String]
    /// Validators of a cached copy for a conditional request (`refreshCached`).
    public var cachedValidators: CacheValidators?

    public init(url: URL, headers: [String: String] = [:], cachedValidators: CacheValidators? = nil) {
        self.url = url
        self.headers = headers
        self.cachedValidators = cachedValidators
    }
}

/// Validators that let a source answer "not modified".
public struct CacheValidators: Sendable, Hashable, Codable {
    public var etag: String?
    public var lastModified: String?
    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// Progress of one load.
public struct LoadProgress: Sendable {
    /// Bytes received so far; never decreases.
    public var received: Int64
    /// Total bytes expected, or −1 when unknown.
    public var expected: Int64
    /// The newly received bytes, only when ``LoaderOptions/progressiveLoad`` was asked.
    public var chunk: Data?

    public init(received: Int64, expected: Int64, chunk: Data? = nil) {
        self.received = received
        self.expected = expected
        self.chunk = chunk
    }
}

/// The outcome of a successful load.
public struct LoadResult: Sendable {
    /// The body. Empty when ``notModified`` is true.
    public var data: Data
    /// The final URL after redirects.
    public var url: URL
    /// HTTP status, nil for non-HTTP sources.
    public var statusCode: Int?
    /// Response headers (names lower-cased); empty for non-HTTP sources.
    public var headers: [String: String]
    /// The source confirmed that the cached copy is still current (HTTP 304).
    public var notModified: Bool

    public init(data: Data, url: URL, statusCode: Int? = nil, headers: [String: String] = [:], notModified: Bool = false) {
        self.data = data
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.notModified = notModified
    }

    /// The validators this response carries, for a later conditional request.
    public var validators: CacheValidators? {
        let etag = headers["etag"], lastModified = headers["last-modified"]
        return etag == nil && lastModified == nil ? nil : CacheValidators(etag: etag, lastModified: lastModified)
    }
}
