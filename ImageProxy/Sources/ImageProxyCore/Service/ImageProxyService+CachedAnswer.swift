import Foundation

extension ImageProxyService {
    /// The answer for a result already in memory, found without waiting: nil unless `path` (with
    /// this `accept`) was answered before and its result is still in the memory cache.
    ///
    /// When it is not nil it is exactly what ``respond(path:accept:ifNoneMatch:)`` answers for the
    /// same arguments (status, headers, body, cache type `memory`): the HTTP layer may call it on
    /// its event loop, before it hands a request to a task, and answer from there. It takes two
    /// locks (the route map and the result cache), never suspends and does no I/O.
    ///
    /// `clientHints` are read only when the service reads them (``readsClientHints``).
    public func cachedAnswer(path: String, accept: String?, ifNoneMatch: String?, clientHints: ImgproxyClientHints? = nil) -> ProxyResponse? {
        cachedAnswerAndStamp(path: path, accept: accept, ifNoneMatch: ifNoneMatch, clientHints: clientHints)?.answer
    }

    /// ``cachedAnswer(path:accept:ifNoneMatch:clientHints:)`` with the stamp of the result it
    /// answers from: while ``isInMemory(_:)`` holds for the stamp, the same arguments get the same
    /// answer (its fields depend only on the result, the route and the configuration), so the HTTP
    /// layer may keep what it made of the answer and send that again.
    public func cachedAnswerAndStamp(
        path: String, accept: String?, ifNoneMatch: String?, clientHints: ImgproxyClientHints? = nil
    ) -> (answer: ProxyResponse, stamp: MemoryResultStamp)? {
        // A path (with this Accept) that was parsed, authorised and allowed before maps straight
        // to its result key; the path alone decides all three, so none is redone.
        let routeKey = self.routeKey(path: path, accept: accept, clientHints: clientHints)
        guard let route = routes.withLock({ $0.map[routeKey] }), let hit = results.value(forKey: route.key) else { return nil }
        return (success(hit, cacheType: "memory", route: route, ifNoneMatch: ifNoneMatch), MemoryResultStamp(key: route.key, etag: hit.etag))
    }

    /// Whether the result `stamp` was taken from is still in memory, unchanged (the same entity
    /// tag under its key); like any memory hit, it counts as a use of the result. One lock.
    public func isInMemory(_ stamp: MemoryResultStamp) -> Bool {
        results.value(forKey: stamp.key)?.etag == stamp.etag
    }

    /// The key of ``routes``: the path, the Accept header when there is one, and the client
    /// hints when the service reads them.
    func routeKey(path: String, accept: String?, clientHints: ImgproxyClientHints?) -> String {
        let key = accept.map { path + "\u{0}" + $0 } ?? path
        guard readsClientHints else { return key }
        return key + "\u{1}" + (clientHints ?? ImgproxyClientHints()).keyPart
    }

    /// Whether answers depend on the client hints of a request (imgproxy's
    /// `IMGPROXY_ENABLE_CLIENT_HINTS`, ``ImgproxySettings/enablesClientHints``): the HTTP layer
    /// then reads them (``ImgproxyClientHints/init(header:)``) and passes them on.
    public var readsClientHints: Bool { configuration.compat?.enablesClientHints ?? false }
}

/// Which result in memory an answer came from (``ImageProxyService/cachedAnswerAndStamp(path:accept:ifNoneMatch:clientHints:)``):
/// its key and its entity tag.
public struct MemoryResultStamp: Sendable, Hashable {
    let key: String
    let etag: String
}
