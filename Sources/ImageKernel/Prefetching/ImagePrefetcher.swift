import Foundation

/// Loads lists of URLs into the cache ahead of use, a few at a time.
///
/// Each ``prefetch(_:options:context:progress:completion:)`` call returns its own
/// ``PrefetchToken``; cancelling one token stops only that call's loads and no callback of that
/// call arrives after ``PrefetchToken/cancel()`` returns. A failed URL counts as finished *and*
/// skipped (SDWebImagePrefetcher's counting). An empty list completes at once with (0, 0).
///
/// Transient failures are retried (``retryPolicy``, on by default, unlike a single
/// ``ImageManager/image(for:options:context:events:)-(URL?,_,_,_)``). A list of any length streams: the
/// prefetcher reads the next URL only when a load slot frees up and keeps nothing of a URL once
/// its outcome was reported, so memory stays flat from ten URLs to millions.
public final class ImagePrefetcher: Sendable {
    public let manager: ImageManager
    /// Loads in flight per prefetch call. Default 3.
    public let maxConcurrentPrefetchCount: Int
    /// Options added to every prefetch load.
    public let options: ImageOptions
    /// How loads whose context names no policy retry transient failures. Default
    /// ``RetryPolicy/standard``.
    public let retryPolicy: RetryPolicy
    private let tokens = Locked<[ObjectIdentifier: PrefetchToken]>([:])
    private let sequence = Locked<UInt64>(0)

    public init(manager: ImageManager, maxConcurrentPrefetchCount: Int = 3, options: ImageOptions = [], retryPolicy: RetryPolicy = .standard) {
        self.manager = manager
        self.maxConcurrentPrefetchCount = max(1, maxConcurrentPrefetchCount)
        self.options = options
        self.retryPolicy = retryPolicy
    }

    /// Prefetches the URLs.
    /// - Parameters:
    ///   - urls: the URLs to load; a nil URL fails (and counts as skipped).
    ///   - options: added to the prefetcher's ``options`` for these loads.
    ///   - context: the context of every load; its retry policy defaults to ``retryPolicy``.
    ///   - progress: after each URL: (finished so far, total, that URL's outcome).
    ///   - completion: once at the end: (finished, skipped).
    @discardableResult
    public func prefetch(
        _ urls: [URL?], options: ImageOptions = [], context: ImageContext = ImageContext(),
        progress: (@Sendable (PrefetchProgress) -> Void)? = nil,
        completion: (@Sendable (_ finished: Int, _ skipped: Int) -> Void)? = nil
    ) -> PrefetchToken {
        guard !urls.isEmpty else {
            let token = PrefetchToken(total: 0, sequence: sequence.withLock { $0 += 1; return $0 })
            token.complete { completion?(0, 0) }
            return token
        }
        return prefetch(contentsOf: urls, total: urls.count, options: options, context: context, progress: progress, completion: completion)
    }

    /// Prefetches the URLs of any sequence, read lazily: the next URL is taken only when a load
    /// slot is free, so a sequence that streams a file of millions of lines is never held whole.
    /// - Parameters:
    ///   - urls: the URLs to load, read one at a time; a nil URL fails (and counts as skipped).
    ///   - total: the number of URLs when known (reported in ``PrefetchProgress/total`` and
    ///     ``PrefetchToken/total``), else −1.
    ///   - options: added to the prefetcher's ``options`` for these loads.
    ///   - context: the context of every load; its retry policy defaults to ``retryPolicy``.
    ///   - progress: after each URL: (finished so far, total, that URL's outcome).
    ///   - completion: once at the end: (finished, skipped). An empty sequence completes with (0, 0).
    @discardableResult
    public func prefetch<URLs: Sequence & Sendable>(
        contentsOf urls: URLs, total: Int = -1, options: ImageOptions = [], context: ImageContext = ImageContext(),
        progress: (@Sendable (PrefetchProgress) -> Void)? = nil,
        completion: (@Sendable (_ finished: Int, _ skipped: Int) -> Void)? = nil
    ) -> PrefetchToken where URLs.Element == URL? {
        start(urls, total: total, options: options, context: context, gate: nil, ended: nil, progress: progress, completion: completion)
    }

    /// The prefetch loop; `gate`, when given, is awaited before each URL after the first
    /// `maxConcurrentPrefetchCount` (the backpressure of ``events(contentsOf:total:options:context:bufferSize:)``);
    /// `ended` runs when the loop is over, completed or cancelled.
    private func start<URLs: Sequence & Sendable>(
        _ urls: URLs, total: Int, options: ImageOptions, context: ImageContext, gate: (@Sendable () async -> Void)?,
        ended: (@Sendable () -> Void)?,
        progress: (@Sendable (PrefetchProgress) -> Void)?, completion: (@Sendable (_ finished: Int, _ skipped: Int) -> Void)?
    ) -> PrefetchToken where URLs.Element == URL? {
        let token = PrefetchToken(total: total, sequence: sequence.withLock { $0 += 1; return $0 })
        tokens.withLock { $0[ObjectIdentifier(token)] = token }
        let loadOptions = self.options.union(options)
        var context = context
        if context.retryPolicy == nil { context.retryPolicy = retryPolicy }
        let limit = maxConcurrentPrefetchCount
        let manager = self.manager
        let task = Task { [weak self, context] in
            await withTaskGroup(of: PrefetchProgress.self) { group in
                var iterator = urls.makeIterator()
                func startNext() -> Bool {
                    guard let url = iterator.next() else { return false }
                    group.addTask {
                        let retries = Locked(0)
                        let outcome: Result<ImageResult, ImageKernelError>
                        do {
                            outcome = .success(try await manager.image(for: url, options: loadOptions, context: context) { event in
                                if case .retrying = event { retries.withLock { $0 += 1 } }
                            })
                        } catch {
                            outcome = .failure(ImageKernelError.wrap(error, stage: .request))
                        }
                        return PrefetchProgress(url: url, finished: 0, total: total, outcome: outcome, retries: retries.value)
                    }
                    return true
                }
                var more = true
                for _ in 0..<limit where more { more = startNext() }
                for await done in group {
                    if Task.isCancelled { break }
                    let counts = token.record(success: done.outcome.isSuccess)
                    var report = done
                    report.finished = counts.finished
                    token.deliver { progress?(report) }
                    if more, let gate { await gate() }
                    if more, !Task.isCancelled { more = startNext() }
                }
            }
            let counts = token.counts
            token.complete { completion?(counts.finished, counts.skipped) }
            ended?()
            self?.forget(token)
        }
        token.attach(task)
        return token
    }

    /// An `AsyncSequence` of the same events as the callbacks, with backpressure: the next URL
    /// starts only while fewer than `bufferSize` events (default: the load concurrency) wait to
    /// be read, so a slow reader slows the prefetch instead of holding a backlog. The last element
    /// is ``PrefetchEvent/completed(finished:skipped:)``; a prefetch cancelled through its token or
    /// ``cancelPrefetching()`` ends the sequence without it. Ending the iteration early (or
    /// cancelling the reading task) cancels the prefetch.
    public func events(
        for urls: [URL?], options: ImageOptions = [], context: ImageContext = ImageContext(), bufferSize: Int? = nil
    ) -> PrefetchEvents {
        events(contentsOf: urls, total: urls.count, options: options, context: context, bufferSize: bufferSize)
    }

    /// ``events(for:options:context:bufferSize:)`` for a streamed sequence (see
    /// ``prefetch(contentsOf:total:options:context:progress:completion:)``): with the
    /// backpressure, a list of millions holds at most `bufferSize` events plus the loads in flight.
    public func events<URLs: Sequence & Sendable>(
        contentsOf urls: URLs, total: Int = -1, options: ImageOptions = [], context: ImageContext = ImageContext(), bufferSize: Int? = nil
    ) -> PrefetchEvents where URLs.Element == URL? {
        let channel = PrefetchEventChannel(capacity: bufferSize ?? maxConcurrentPrefetchCount)
        let token = start(
            urls, total: total, options: options, context: context, gate: { await channel.waitForSpace() },
            ended: { channel.finish() },
            progress: { channel.yield(.progress($0)) },
            completion: { finished, skipped in
                channel.yield(.completed(finished: finished, skipped: skipped))
                channel.finish()
            })
        channel.onTerminate { token.cancel() }
        return PrefetchEvents(channel: channel)
    }

    /// The tokens of the prefetch calls still running (neither completed nor cancelled), oldest
    /// first: SDWebImagePrefetcher's running tokens.
    public var runningTokens: [PrefetchToken] {
        tokens.withLock { Array($0.values) }.filter { !$0.isFinished }.sorted { $0.sequence < $1.sequence }
    }

    /// Cancels every prefetch started by this prefetcher.
    public func cancelPrefetching() {
        let all = tokens.withLock { state in
            defer { state.removeAll() }
            return Array(state.values)
        }
        for token in all { token.cancel() }
    }

    private func forget(_ token: PrefetchToken) {
        _ = tokens.withLock { $0.removeValue(forKey: ObjectIdentifier(token)) }
    }
}

/// The outcome of one URL in a prefetch.
public struct PrefetchProgress: Sendable {
    public let url: URL?
    /// URLs done so far (successes and failures).
    public internal(set) var finished: Int
    /// URLs in the call, −1 when a streamed sequence did not say.
    public let total: Int
    public let outcome: Result<ImageResult, ImageKernelError>
    /// How many times this URL's load was retried (``RetryPolicy``) before its outcome.
    public let retries: Int

    public init(url: URL?, finished: Int, total: Int, outcome: Result<ImageResult, ImageKernelError>, retries: Int = 0) {
        self.url = url
        self.finished = finished
        self.total = total
        self.outcome = outcome
        self.retries = retries
    }
}

/// An element of ``ImagePrefetcher/events(for:options:context:bufferSize:)``.
public enum PrefetchEvent: Sendable {
    case progress(PrefetchProgress)
    case completed(finished: Int, skipped: Int)
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
