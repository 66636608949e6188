import Foundation
import ImageKernel
import Synchronization

/// An ``ImageLoader`` for `http` and `https` URLs on libcurl's multi interface.
///
/// One driver thread runs one curl multi handle for all of the loader's transfers, so connections
/// are reused and HTTP/2 streams are multiplexed where the server offers it. Loads of the same
/// request coalesce into one transfer; cancelling a caller's task detaches only that caller, and
/// the last caller leaving cancels the transfer and closes its connection. At most
/// ``Configuration/maxConcurrentDownloads`` transfers run at once; the rest wait in a queue
/// ordered by priority (``LoaderOptions/highPriority``, ``LoaderOptions/lowPriority``), then
/// FIFO or LIFO (``Configuration/executionOrder``).
///
/// Politeness: at most ``Configuration/maxConcurrentDownloadsPerHost`` transfers go to one host
/// (scheme, name, port) at once, and with ``Configuration/adaptsPerHostRate`` each host is paced
/// by its own answers — a 429 or 503 slows that host to about the rate it really served, successes
/// speed it up again until it is unpaced. A busy or slowed host's transfers wait in their own line,
/// so other hosts are never held up. (Our own queue rather than `CURLMOPT_MAX_HOST_CONNECTIONS`:
/// curl's limit queues inside curl, where neither the pacing nor our priorities reach.)
///
/// A body cut mid-way (connection lost, idle timeout) resumes with `Range` and `If-Range` when the
/// response offered `Accept-Ranges: bytes` and a strong ETag or Last-Modified; a 206 continues the
/// bytes held, a 200 starts over, and callers see one result with the first response's head.
/// Retrying whole failed loads is the manager's job (``ImageKernel/RetryPolicy``); a 429 or 503
/// carries its `Retry-After` (seconds or HTTP date) in ``ImageKernelError/retryAfter`` for it.
///
/// Two loads share a transfer when their final requests are equal: same URL, same headers (after
/// merging, validators, the headers filter and the request modifier), and the same
/// `handleCookies` and `allowInvalidSSLCertificates` options. Priority and progressive delivery
/// are per caller. A load that arrives after the transfer finished starts a new one.
///
/// A request with ``ImageRequest/cachedValidators`` is sent as a conditional request
/// (`If-None-Match`, `If-Modified-Since`); a 304 answer yields a ``LoadResult`` with
/// ``LoadResult/notModified`` set and no data. ``LoaderOptions/handleCookies`` sends and stores
/// cookies in a cookie store shared by this loader's transfers; ``LoaderOptions/progressiveLoad``
/// passes each new chunk in ``LoadProgress/chunk``; ``LoaderOptions/allowInvalidSSLCertificates``
/// turns certificate checks off.
///
/// Failures are ``ImageKernelError``s at stage `.load` with plugin `"LoaderHTTP"`: `timeout`,
/// `dnsFailure`, `cannotConnect`, `connectionLost` and `cancelled` are transient, as is
/// `httpStatus` for 408, 429 and 5xx (the status is in ``ImageKernelError/httpStatus``, the
/// response's headers, such as `retry-after`, in ``ImageKernelError/responseHeaders``);
/// `tooLarge`, `tls`, `redirect`, `invalidURL`, `bodyRejected`, other statuses and a reply that
/// is not HTTP (`ioError`) are permanent.
///
/// Call ``shutdown()`` when done (deinit does it too); it stops the driver thread.
public final class HTTPLoader: ImageLoader {
    /// How the loader names itself in errors: `"LoaderHTTP"`.
    public static let pluginName = "LoaderHTTP"

    /// A snapshot of the loader's queue.
    public struct Status: Sendable, Hashable {
        /// Transfers waiting for a free slot.
        public var queuedTransfers: Int
        /// Transfers added to curl.
        public var runningTransfers: Int
        /// Callers waiting for a result, across all transfers.
        public var tokens: Int

        /// A status with these counts.
        public init(queuedTransfers: Int, runningTransfers: Int, tokens: Int) {
            self.queuedTransfers = queuedTransfers
            self.runningTransfers = runningTransfers
            self.tokens = tokens
        }

        /// Nothing queued, running or waiting.
        public static let idle = Status(queuedTransfers: 0, runningTransfers: 0, tokens: 0)
    }

    /// `"LoaderHTTP"`.
    public var name: String { Self.pluginName }
    /// The settings this loader was created with.
    public let configuration: Configuration
    private let driver: CurlDriver
    /// The user agent and configured headers, merged once.
    let baseHeaders: [String: String]
    private let nextTokenID = Atomic<UInt64>(1)

    /// Creates a loader and starts its driver thread.
    /// - Throws: ``ImageKernelError`` with code `invalidArgument` when a configured header cannot
    ///   be sent (control characters, a name that is not a token), `internal` when libcurl cannot
    ///   be initialised.
    public init(configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        self.baseHeaders = HeaderMerge.base(configuration)
        try Self.validate(baseHeaders)
        self.driver = try CurlDriver(configuration: configuration)
    }

    deinit { driver.shutdown(wait: false) }

    /// True for `http` and `https` URLs.
    public func canLoad(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    /// Loads the request's URL. `progress` is called on the loader's driver thread; keep it short.
    /// - Throws: ``ImageKernelError`` at stage `.load`; code `cancelled` when the task was
    ///   cancelled or ``cancelAllDownloads()`` was called.
    public func load(
        _ request: ImageRequest, options: LoaderOptions, context: ImageContext,
        progress: @escaping @Sendable (LoadProgress) -> Void
    ) async throws(ImageKernelError) -> LoadResult {
        try ImageKernelError.checkCancellation(.load, plugin: Self.pluginName)
        let spec = try makeSpec(request, options: options, context: context)
        // The manager's live priority, when there is one, wins over the options' starting value:
        // a shared load moves up the queue when a more urgent caller joins it.
        let livePriority = context.loadPriority
        let token = LoadToken(
            id: nextTokenID.add(1, ordering: .relaxed).oldValue,
            priority: LoadToken.Priority(livePriority?.value ?? LoadPriority(options)),
            wantsChunks: options.contains(.progressiveLoad), progress: progress)
        let driver = self.driver
        let observer = livePriority?.observe { [id = token.id] priority in
            driver.send(.reprioritize(tokenID: id, LoadToken.Priority(priority)))
        }
        defer { if let observer { livePriority?.removeObserver(observer) } }
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard token.install(continuation) else { return }
                if !driver.send(.attach(spec, token)) {
                    token.complete(.failure(.http(.cancelled, "the loader was shut down")))
                }
            }
        } onCancel: {
            token.complete(.failure(.cancelled(.load, plugin: Self.pluginName)))
            driver.send(.detach(tokenID: token.id))
        }
        return try outcome.get()
    }

    /// Cancels every queued and running download and returns when that is done.
    ///
    /// When it returns, every transfer that was queued or running (including loads whose
    /// ``load(_:options:context:progress:)`` call reached the loader before this call) has been
    /// removed from curl, each of its waiting loads has been completed with an
    /// ``ImageKernelError`` of code `cancelled` (the `load` calls throw it as their tasks resume),
    /// and ``status()`` shows ``Status/idle`` unless new loads started in the meantime.
    /// Returns the status the driver saw right after cancelling.
    @discardableResult
    public func cancelAllDownloads() async -> Status {
        let driver = self.driver
        return await withCheckedContinuation { continuation in
            let sent = driver.send(.cancelAll { continuation.resume(returning: $0) })
            // A loader that was shut down cancelled everything on its way out.
            if !sent { continuation.resume(returning: .idle) }
        }
    }

    /// The number of queued and running transfers and of waiting callers.
    public func status() async -> Status {
        let driver = self.driver
        return await withCheckedContinuation { continuation in
            let sent = driver.send(.status { continuation.resume(returning: $0) })
            if !sent { continuation.resume(returning: .idle) }
        }
    }

    /// Stops the driver thread: waiting callers fail with `cancelled`, later loads fail at once.
    /// Returns when the thread has finished (unless called from a progress or modifier callback).
    public func shutdown() {
        driver.shutdown(wait: true)
    }
}
