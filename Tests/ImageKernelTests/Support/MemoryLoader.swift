import Foundation
import ImageKernel

/// A loader serving bytes from a dictionary, for `mem://` URLs. Counts requests, records the
/// options it was given, can delay, fail, or answer "not modified" to conditional requests.
final class MemoryLoader: ImageLoader, Sendable {
    struct Reply: Sendable {
        var data: Data
        var delay: Duration = .zero
        var error: ImageKernelError?
        var etag: String?
    }

    let name = "MemoryLoader"
    private let replies = Locked<[String: Reply]>([:])
    let requests = Locked<[ImageRequest]>([])
    let lastOptions = Locked<LoaderOptions?>(nil)
    let chunkSize: Int

    init(chunkSize: Int = 4096) { self.chunkSize = chunkSize }

    func serve(_ path: String, _ reply: Reply) { replies.withLock { $0[path] = reply } }
    func serve(_ path: String, data: Data, delay: Duration = .zero, etag: String? = nil) {
        serve(path, Reply(data: data, delay: delay, etag: etag))
    }
    func fail(_ path: String, _ error: ImageKernelError, delay: Duration = .zero) {
        serve(path, Reply(data: Data(), delay: delay, error: error))
    }

    var requestCount: Int { requests.withLock { $0.count } }
    func requestCount(for url: URL) -> Int { requests.withLock { $0.filter { $0.url == url }.count } }

    func canLoad(_ url: URL) -> Bool { url.scheme == "mem" }

    func load(
        _ request: ImageRequest, options: LoaderOptions, context: ImageContext,
        progress: @escaping @Sendable (LoadProgress) -> Void
    ) async throws(ImageKernelError) -> LoadResult {
        requests.withLock { $0.append(request) }
        lastOptions.withLock { $0 = options }
        guard let reply = replies.withLock({ $0[request.url.host() ?? ""] ?? $0[request.url.path()] }) else {
            throw ImageKernelError(stage: .load, plugin: name, code: .notFound, message: "\(request.url) not served")
        }
        if reply.delay > .zero {
            do { try await Task.sleep(for: reply.delay) } catch { throw ImageKernelError.cancelled(.load, plugin: name) }
        }
        if Task.isCancelled { throw ImageKernelError.cancelled(.load, plugin: name) }
        if let error = reply.error { throw error }
        let headers = reply.etag.map { ["etag": $0] } ?? [:]
        if let etag = reply.etag, request.cachedValidators?.etag == etag {
            return LoadResult(data: Data(), url: request.url, statusCode: 304, headers: headers, notModified: true)
        }
        var sent = 0
        let total = reply.data.count
        repeat {
            let end = min(total, sent + chunkSize)
            let chunk = reply.data[(reply.data.startIndex + sent)..<(reply.data.startIndex + end)]
            sent = end
            progress(LoadProgress(received: Int64(sent), expected: Int64(total), chunk: options.contains(.progressiveLoad) ? Data(chunk) : nil))
            await Task.yield()
        } while sent < total
        if Task.isCancelled { throw ImageKernelError.cancelled(.load, plugin: name) }
        return LoadResult(data: reply.data, url: request.url, statusCode: 200, headers: headers)
    }
}

/// Records events delivered to a callback.
final class EventLog<T: Sendable>: Sendable {
    private let items = Locked<[T]>([])
    func append(_ item: T) { items.withLock { $0.append(item) } }
    var all: [T] { items.withLock { $0 } }
    var count: Int { items.withLock { $0.count } }
}

/// Waits (with a generous bound) for a condition that another task makes true.
func eventually(_ timeout: Duration = .seconds(60), _ condition: @Sendable () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}

func memURL(_ name: String) -> URL { URL(string: "mem://\(name)/image.raw")! }

/// A manager with a MemoryLoader and RawCoder over the given cache.
func makeManager(
    cache: any ImageCache = MemoryCache(), loader: MemoryLoader = MemoryLoader(), coder: RawCoder = RawCoder(),
    delegate: (any ImageManagerDelegate)? = nil, transformer: (any ImageTransformer)? = nil
) -> ImageManager {
    ImageManager(configuration: .init(
        cache: cache, loaders: LoaderRegistry([loader]), coders: CoderRegistry([coder]),
        transformer: transformer, delegate: delegate))
}
