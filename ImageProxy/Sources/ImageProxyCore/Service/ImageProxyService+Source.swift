import CacheDisk
import Foundation
import ImageKernel
import LoaderHTTP

/// A source's bytes as ``ImageProxyService/loadSource(_:)`` found them.
struct SourceBytes: Sendable {
    let data: Data
    /// Where they came from: `origin`, `source-memory`, `source-disk`, `source-shared` or `local`.
    let from: String
    /// The key to keep them under, when they are to be kept now: from the origin or from memory,
    /// on the use ``OriginalAdmission`` admits them (``ImageProxyService/keepOriginal(_:)``).
    let originalKey: String?
    /// The URL that answered (the source's, or the last redirect's).
    let url: URL
    /// The validators of that answer, from the origin or kept with the bytes in the caches.
    let validators: CacheValidators?

    /// The origin's `ETag` when it is strong (RFC 9110 §8.8.3: the same tag means the same
    /// bytes), with the URL it is for; nil for a weak tag or none.
    var strongValidator: String? {
        guard let tag = validators?.etag, tag.hasPrefix("\""), tag.count > 2 else { return nil }
        return "\(url.absoluteString)\n\(tag)"
    }
}

extension ImageProxyService {
    /// The source's bytes through the manager (download shared by every render of the source,
    /// originals cached), following redirects itself so each hop meets the origin policy, all
    /// within ``ProxyConfiguration/sourceTimeout``: past it, the ``DeadlineWatch`` cancels the
    /// load and it fails with 504. Each hop connects to the addresses the policy checked
    /// (`HTTPLoader.PinnedAddresses`), never to a second resolution of the name.
    ///
    /// A source the origin just sent is kept in memory here and handed back with its key: the
    /// caller keeps it on disk (and in the shared tier) while it renders (``keepOriginal(_:)``),
    /// rather than the manager before it returns.
    func loadSource(_ source: URL) async throws(ProxyError) -> SourceBytes {
        if LocalSourcePolicy.isLocal(source) { return try await loadLocalSource(source) }
        // A task of its own, so the deadline cancels the load and not the request (whose task
        // must still write the 504), started on this thread: no hand-off before the loader's.
        let load = Task.immediate { () async -> Result<SourceBytes, ProxyError> in
            do throws(ProxyError) { return .success(try await self.fetchSource(source)) } catch { return .failure(error) }
        }
        let limit = configuration.sourceTimeout
        let watch = deadlines.start(limit) { load.cancel() }
        let outcome = await load.value
        if deadlines.end(watch), case .failure = outcome {
            throw .timeout("the source took longer than \(limit): \(source.absoluteString.prefix(200))")
        }
        return try outcome.get()
    }

    private func fetchSource(_ source: URL) async throws(ProxyError) -> SourceBytes {
        let manager = self.manager
        let policy = self.policy
        let hops = configuration.maxRedirects
        do {
            var url = source
            var pins = try policy.check(source)
            for _ in 0...hops {
                let result: ImageResult
                do throws(ImageKernelError) {
                    var context = ImageContext()
                    context.storeCacheType = ImageCacheType.none  // kept by the caller, beside the render
                    if !pins.isEmpty { context[HTTPLoader.PinnedAddresses.self] = pins }
                    result = try await manager.image(for: url, options: [.avoidDecode, .retryFailed], context: context)
                } catch {
                    guard error.code == .httpStatus, let status = error.httpStatus, [301, 302, 303, 307, 308].contains(status) else {
                        throw ProxyError(error)
                    }
                    guard let location = error.responseHeaders?["location"], let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                        throw ProxyError(status: 502, code: "redirect", message: "the source answered \(status) without a usable Location")
                    }
                    do throws(ProxyError) {
                        pins = try policy.check(next)
                    } catch {
                        throw ProxyError.originNotAllowed("the source redirects to a disallowed origin: \(error.message)")
                    }
                    url = next
                    continue
                }
                guard let data = result.data else { throw ProxyError(status: 502, code: "no_data", message: "the source gave no bytes") }
                if result.cacheType != .memory, let key = result.cacheKey {
                    // Byte-only loads are kept on disk by the manager; the bytes stay in its memory
                    // tier too, so other renders of a popular source need neither disk nor origin.
                    try? await manager.cache.store(CacheEntry(data: data, validators: result.validators), forKey: key, type: .memory)
                }
                let from = result.isFromSharedCache ? "source-shared" : result.cacheType == .none ? "origin" : "source-\(result.cacheType.rawValue)"
                // Kept on disk on its `originalMinUses`-th use (from the origin or from memory).
                let keptNow = result.cacheKey.map { key in
                    switch result.cacheType {
                    case .none: originalAdmission.use(key, fromOrigin: true)
                    case .memory: originalAdmission.use(key, fromOrigin: false)
                    default: false
                    }
                } ?? false
                return SourceBytes(
                    data: data, from: from, originalKey: keptNow ? result.cacheKey : nil, url: url, validators: result.validators)
            }
            throw ProxyError(status: 502, code: "redirect", message: "the source redirected more than \(hops) times")
        }
    }

    /// A `local:///` source's bytes, read from the descriptor ``LocalSourcePolicy`` opened under
    /// the root in one step (the file may have changed since the request was checked: this open
    /// is checked on its own), within ``ProxyConfiguration/maxSourceBytes``. Not cached as an
    /// original: the file is at hand.
    private func loadLocalSource(_ source: URL) async throws(ProxyError) -> SourceBytes {
        let data = try localPolicy.read(source, limit: configuration.maxSourceBytes)
        return SourceBytes(data: data, from: "local", originalKey: nil, url: source, validators: nil)
    }

    /// Keeps a source admitted now (``SourceBytes/originalKey``) on disk and in the shared
    /// tier, with its validators (a failing tier is logged, never an error for the request).
    func keepOriginal(_ source: SourceBytes) async {
        guard let key = source.originalKey else { return }
        do {
            try await manager.cache.store(CacheEntry(data: source.data, validators: source.validators), forKey: key, type: .disk)
        } catch {
            logger.warning("source not kept on disk", metadata: ["error": "\(error)"])
        }
    }

    /// Runs `body`, or throws 504 once `limit` has passed (cancelling it).
    static func withDeadline<T: Sendable>(
        _ limit: Duration, what: String, _ body: @escaping @Sendable () async throws(ProxyError) -> T
    ) async throws(ProxyError) -> T {
        let outcome: Result<T, ProxyError>? = await withTaskGroup(of: Result<T, ProxyError>?.self) { group in
            group.addTask {
                do throws(ProxyError) { return .success(try await body()) } catch { return .failure(error) }
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let outcome else { throw .timeout("the source took longer than \(limit): \(what.prefix(200))") }
        return try outcome.get()
    }
}
