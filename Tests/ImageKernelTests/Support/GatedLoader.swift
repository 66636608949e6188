import Foundation
import ImageKernel

/// A loader for `gate://` URLs whose loads wait until the test opens the gate, so a test can pile
/// callers onto one load. Records each load's options and live priority, and cancellations.
final class GatedLoader: ImageLoader, Sendable {
    let name = "GatedLoader"
    private struct State {
        var data: [String: Data] = [:]
        var failure: ImageKernelError?
    }
    private let state = Locked(State())
    private let gate = Gate()
    let requests = Locked<[ImageRequest]>([])
    let options = Locked<[LoaderOptions]>([])
    let priorities = Locked<[LoadPriorityHandle]>([])
    let cancellations = Locked(0)
    let started = Locked(0)

    func serve(_ host: String, _ data: Data) { state.withLock { $0.data[host] = data } }
    func failAll(with error: ImageKernelError) { state.withLock { $0.failure = error } }
    var requestCount: Int { requests.withLock { $0.count } }

    /// Lets every waiting and future load go on.
    func open() { gate.open() }

    func canLoad(_ url: URL) -> Bool { url.scheme == "gate" }

    func load(
        _ request: ImageRequest, options: LoaderOptions, context: ImageContext,
        progress: @escaping @Sendable (LoadProgress) -> Void
    ) async throws(ImageKernelError) -> LoadResult {
        requests.withLock { $0.append(request) }
        self.options.withLock { $0.append(options) }
        if let handle = context.loadPriority { priorities.withLock { $0.append(handle) } }
        started.withLock { $0 += 1 }
        await gate.wait()
        if Task.isCancelled {
            cancellations.withLock { $0 += 1 }
            throw ImageKernelError.cancelled(.load, plugin: name)
        }
        let (data, failure) = state.withLock { ($0.data[request.url.host() ?? ""], $0.failure) }
        if let failure { throw failure }
        guard let data else { throw ImageKernelError(stage: .load, plugin: name, code: .notFound, message: "not served") }
        progress(LoadProgress(received: Int64(data.count / 2), expected: Int64(data.count)))
        progress(LoadProgress(received: Int64(data.count), expected: Int64(data.count)))
        return LoadResult(data: data, url: request.url, statusCode: 200)
    }
}

func gateURL(_ host: String) -> URL { URL(string: "gate://\(host)/image.raw")! }

/// A cache in front of another that counts queries (by type, and by key and tier) and stores,
/// can hold disk queries until released, and records queries that ended cancelled.
final class CountingCache: ImageCache, Sendable {
    /// Queries of one key that reached each tier: a `.memory` query counts for memory, `.disk`
    /// for disk, `.all` for both.
    struct TierQueries: Equatable, CustomStringConvertible {
        var memory = 0
        var disk = 0
        var description: String { "memory \(memory), disk \(disk)" }
    }

    let name = "CountingCache"
    let inner: any ImageCache
    let queries = Locked<[ImageCacheType: Int]>([:])
    private let keyed = Locked<[String: TierQueries]>([:])
    let stores = Locked<[(key: String, type: ImageCacheType)]>([])
    let cancelledQueries = Locked(0)
    private let diskDelay: Duration
    /// Disk queries of this key wait (10 s at most) until `holdUntil` disk queries of other keys
    /// have finished, so tests can hold one caller's query of the original open until the others
    /// have looked up their own keys and moved on to it.
    private let heldKey: String?
    private let holdUntil: Int
    private let finishedOtherDiskQueries = Locked(0)

    /// Whether the inner cache's ``ImageCache/memoryTier`` is exposed (then the manager answers
    /// finished results from it without a query, which this cache does not count).
    let exposesMemoryTier: Bool
    var memoryTier: MemoryCache? { exposesMemoryTier ? inner.memoryTier : nil }

    init(
        _ inner: any ImageCache = MemoryCache(), diskDelay: Duration = .zero, holdDiskQueriesOf heldKey: String? = nil, until holdUntil: Int = 0,
        exposesMemoryTier: Bool = false
    ) {
        self.inner = inner
        self.exposesMemoryTier = exposesMemoryTier
        self.diskDelay = diskDelay
        self.heldKey = heldKey
        self.holdUntil = holdUntil
    }

    func queryCount(_ type: ImageCacheType) -> Int { queries.withLock { $0[type] ?? 0 } }
    func tierQueries(_ key: String) -> TierQueries { keyed.withLock { $0[key] ?? TierQueries() } }

    func query(key: String, type: ImageCacheType) async throws(ImageKernelError) -> CacheQueryResult? {
        queries.withLock { $0[type, default: 0] += 1 }
        keyed.withLock { counts in
            if type.includesMemory { counts[key, default: TierQueries()].memory += 1 }
            if type.includesDisk { counts[key, default: TierQueries()].disk += 1 }
        }
        defer { if type.includesDisk, key != heldKey { finishedOtherDiskQueries.withLock { $0 += 1 } } }
        if type.includesDisk, key == heldKey {
            let deadline = ContinuousClock.now + .seconds(10)
            while finishedOtherDiskQueries.withLock({ $0 }) < holdUntil, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        if type.includesDisk, diskDelay > .zero {
            do { try await Task.sleep(for: diskDelay) } catch {
                cancelledQueries.withLock { $0 += 1 }
                throw ImageKernelError.cancelled(.cache, plugin: name)
            }
        }
        return try await inner.query(key: key, type: type)
    }

    func store(_ entry: CacheEntry, forKey key: String, type: ImageCacheType) async throws(ImageKernelError) {
        stores.withLock { $0.append((key, type)) }
        try await inner.store(entry, forKey: key, type: type)
    }

    func remove(key: String, type: ImageCacheType) async throws(ImageKernelError) { try await inner.remove(key: key, type: type) }
    func contains(key: String, type: ImageCacheType) async -> ImageCacheType { await inner.contains(key: key, type: type) }
    func clear(type: ImageCacheType) async throws(ImageKernelError) { try await inner.clear(type: type) }
}
