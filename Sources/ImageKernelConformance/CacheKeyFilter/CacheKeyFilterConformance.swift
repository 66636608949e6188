import Foundation
import ImageKernel

/// Checks a ``CacheKeyFilter`` against the implementation requirements of the protocol.
///
/// ```swift
/// try await CacheKeyFilterConformance(filter: AbsoluteURLCacheKeyFilter()).run()
/// ```
///
/// ## Cases
/// - ``Case/keyIsDeterministic``: every URL gives the same key on repeated calls and when parsed
///   again from its absolute string.
/// - ``Case/cacheableURLsGetKeys``: every URL in ``urls`` gets a key (nil means "do not cache";
///   the listed URLs are meant to be cacheable).
/// - ``Case/distinctURLsGetDistinctKeys``: no two URLs in ``urls`` share a key.
/// - ``Case/concurrentUseAgrees``: ``concurrency`` threads computing keys at once get exactly
///   the keys one thread gets.
///
/// The default ``defaultURLs`` differ in scheme, host, port, path, extension, query and escapes.
/// A filter that deliberately drops a part of the URL (say, a query carrying a token) passes a
/// list of URLs that differ in what it keeps.
public struct CacheKeyFilterConformance: ConformanceSuite {
    /// The cases of the key filter suite; see the type's documentation for what each proves.
    public enum Case: String, CaseIterable, Sendable {
        /// The same URL always gives the same key.
        case keyIsDeterministic
        /// Every listed URL gets a key.
        case cacheableURLsGetKeys
        /// No two listed URLs share a key.
        case distinctURLsGetDistinctKeys
        /// Many threads at once get what one thread gets.
        case concurrentUseAgrees
    }

    public static let suiteName = "CacheKeyFilterConformance"

    /// Pairwise different, cacheable URLs.
    public static let defaultURLs: [URL] = [
        "https://example.com/a.png", "https://example.com/b.png", "https://example.com/a.jpg", "https://example.org/a.png",
        "http://example.com/a.png", "https://example.com:8443/a.png", "https://example.com/dir/a.png",
        "https://example.com/a.png?size=large", "https://example.com/a%20b.png", "https://example.com/%E2%9C%93.png",
        "file:///tmp/a.png", "file:///tmp/dir/a.png",
    ].compactMap { URL(string: $0) }

    /// The filter under test.
    public let filter: any CacheKeyFilter
    /// Pairwise different URLs that must each get their own key.
    public let urls: [URL]
    /// How many threads the concurrency case uses.
    public let concurrency: Int
    /// The time limit of one case; a guard against hangs.
    public let timeout: Duration

    /// Creates the suite.
    /// - Parameters:
    ///   - filter: The filter under test.
    ///   - urls: Pairwise different, cacheable URLs (default ``defaultURLs``).
    ///   - concurrency: Threads in the concurrency case (default 8).
    ///   - timeout: Time limit of one case (default 30 s).
    public init(filter: any CacheKeyFilter, urls: [URL] = CacheKeyFilterConformance.defaultURLs, concurrency: Int = 8, timeout: Duration = .seconds(30)) {
        self.filter = filter
        self.urls = urls
        self.concurrency = max(2, concurrency)
        self.timeout = timeout
    }

    /// Runs one case; throws a ``ConformanceFailure`` naming the case and the input that failed.
    public func run(case testCase: Case) async throws(ConformanceFailure) {
        let context = CaseContext(Self.self, testCase)
        try await context.runBlocking(timeout) { () throws(ConformanceFailure) in
            guard !urls.isEmpty else { throw context.failure("no URLs", "the key filter suite needs at least one URL") }
            switch testCase {
            case .keyIsDeterministic: try checkKeyIsDeterministic(context)
            case .cacheableURLsGetKeys: try checkCacheableURLsGetKeys(context)
            case .distinctURLsGetDistinctKeys: try checkDistinctURLsGetDistinctKeys(context)
            case .concurrentUseAgrees: try checkConcurrentUseAgrees(context)
            }
        }
    }

    private static func show(_ key: String?) -> String { key.map { "\"\($0)\"" } ?? "nil" }

    private func checkKeyIsDeterministic(_ context: CaseContext) throws(ConformanceFailure) {
        for url in urls {
            let first = filter.cacheKey(for: url)
            let again = [filter.cacheKey(for: url), filter.cacheKey(for: url)] + (URL(string: url.absoluteString).map { [filter.cacheKey(for: $0)] } ?? [])
            if let different = again.first(where: { $0 != first }) {
                throw context.failure("URL \(url.absoluteString)", "the key changed from \(Self.show(first)) to \(Self.show(different))")
            }
        }
    }

    private func checkCacheableURLsGetKeys(_ context: CaseContext) throws(ConformanceFailure) {
        for url in urls where filter.cacheKey(for: url) == nil {
            throw context.failure("URL \(url.absoluteString)", "the filter returned nil (do not cache) for a cacheable URL")
        }
    }

    private func checkDistinctURLsGetDistinctKeys(_ context: CaseContext) throws(ConformanceFailure) {
        var owners: [String: URL] = [:]
        for url in urls {
            guard let key = filter.cacheKey(for: url) else { continue }
            if let owner = owners[key], owner != url {
                throw context.failure(
                    "URLs \(owner.absoluteString) and \(url.absoluteString)", "both get the key \(Self.show(key))")
            }
            owners[key] = url
        }
    }

    private func checkConcurrentUseAgrees(_ context: CaseContext) throws(ConformanceFailure) {
        let (filter, urls, threads) = (self.filter, self.urls, concurrency)
        let expected = urls.map { filter.cacheKey(for: $0) }
        let firstProblem = Locked<ConformanceFailure?>(nil)
        Threads.fanOut(threads) { thread in
            for round in 0..<50 {
                for offset in urls.indices {
                    let index = (offset + thread + round) % urls.count
                    let key = filter.cacheKey(for: urls[index])
                    if key != expected[index] {
                        let failure = context.failure(
                            "URL \(urls[index].absoluteString) on thread \(thread) of \(threads)",
                            "a concurrent call gave \(Self.show(key)), one thread alone gives \(Self.show(expected[index]))")
                        firstProblem.withLock { $0 = $0 ?? failure }
                        return
                    }
                }
            }
        }
        if let failure = firstProblem.withLock({ $0 }) { throw failure }
    }
}
