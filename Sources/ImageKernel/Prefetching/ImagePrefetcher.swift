import Foundation

/// Loads lists of URLs into the cache ahead of use, a few at a time.
///
/// Each ``prefetch(_:options:context:progress:completion:)`` call returns its own
/// ``PrefetchToken``; cancelling one token stops only that call's loads and no callback of that
/// call arrives after ``PrefetchToken/cancel()`` returns. A failed URL counts as finished *and*
/// skipped (SDWebImagePrefetcher's counting). An empty list completes at once with (0, 0).
public final class ImagePrefetcher: Sendable {
    public let manager: ImageManager
    /// Loads in flight per prefetch call. Default 3.
    public let maxConcurrentPrefetchCount: Int
    /// Options added to every prefetch load.
    public let options: ImageOptions
    private let tokens = Locked<[ObjectIdentifier: PrefetchToken]>([:])
    private let sequence = Locked<UInt64>(0)

    public init(manager: ImageManager, maxConcurrentPrefetchCount: Int = 3, options: ImageOptions = []) {
        self.manager = manager
        self.maxConcurrentPrefetchCount = max(1, maxConcurrentPrefetchCount)
        self.options = options
    }

    /// Prefetches the URLs.
    /// - Parameters:
    ///   - progress: after each URL: (finished so far, total, that URL's outcome).
    ///   - completion: once at the end: (finished, skipped).
    @discardableResult
    public func prefetch(
        _ urls: [URL?], options: ImageOptions = [], context: ImageContext = ImageContext(),
        progress: (@Sendable (PrefetchProgress) -> Void)? = nil,
        completion: (@Sendable (_ finished: Int, _ skipped: Int) -> Void)? = nil
    ) -> PrefetchToken {
        let token = PrefetchToken(total: urls.count, sequence: sequence.withLock { $0 += 1; return $0 })
        guard !urls.isEmpty else {
            token.complete { completion?(0, 0) }
            return token
        }
        tokens.withLock { $0[ObjectIdentifier(token)] = token }
        let loadOptions = self.options.union(options)
        let limit = maxConcurrentPrefetchCount
        let manager = self.manager
        let task = Task { [weak self] in
            await withTaskGroup(of: (URL?, Result<ImageResult, ImageKernelError>).self) { group in
                var next = 0
                func startNext() {
                    let url = urls[next]
                    next += 1
                    group.addTask {
                        do {
                            return (url, .success(try await manager.image(for: url, options: loadOptions, context: context)))
                        } catch {
                            return (url, .failure(ImageKernelError.wrap(error, stage: .request)))
                        }
                    }
                }
                while next < min(limit, urls.count) { startNext() }
                for await (url, outcome) in group {
                    if Task.isCancelled { break }
                    let counts = token.record(success: outcome.isSuccess)
                    token.deliver { progress?(PrefetchProgress(url: url, finished: counts.finished, total: urls.count, outcome: outcome)) }
                    if next < urls.count { startNext() }
                }
            }
            let counts = token.counts
            token.complete { completion?(counts.finished, counts.skipped) }
            self?.forget(token)
        }
        token.attach(task)
        return token
    }

    /// An `AsyncSequence` of the same events as the callbacks; the last element is
    /// ``PrefetchEvent/completed(finished:skipped:)``. Ending the iteration early cancels the prefetch.
    public func events(
        for urls: [URL?], options: ImageOptions = [], context: ImageContext = ImageContext()
    ) -> AsyncStream<PrefetchEvent> {
        AsyncStream { continuation in
            let token = prefetch(
                urls, options: options, context: context,
                progress: { continuation.yield(.progress($0)) },
                completion: { finished, skipped in
                    continuation.yield(.completed(finished: finished, skipped: skipped))
                    continuation.finish()
                })
            continuation.onTermination = { _ in token.cancel() }
        }
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
    public let finished: Int
    public let total: Int
    public let outcome: Result<ImageResult, ImageKernelError>
}

/// An element of ``ImagePrefetcher/events(for:options:context:)``.
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
