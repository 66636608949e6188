import HTTPTypes
import HummingbirdCore
import ImageProxyCore
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
import Glibc
#endif

extension ProxyRoutes {
    /// The answer for `request` when its result is already in memory (see
    /// `ImageProxyService.cachedAnswer`), counted and logged as ``respond(to:)`` counts and logs
    /// it, its head prepared once (``PreparedHeads``); nil for everything else: other methods,
    /// requests that do not keep the connection alive, paths not answered before, results no
    /// longer in memory. Called on an event loop: it never waits.
    ///
    /// `date` is the `Date` value the answer's head carries (29 bytes of IMF-fixdate).
    ///
    /// An answer found this way is kept whole (``PreparedAnswers``), so the next request for the
    /// same target without `If-None-Match` is answered from there while its result stays in memory.
    func hotAnswer(_ request: HTTPRequestHead, date: String) -> (head: ByteBuffer, body: ByteBuffer?)? {
        let isHead = request.method == .HEAD
        guard request.method == .GET || isHead, request.isKeepAlive, request.uri.utf8.first == UInt8(ascii: "/") else { return nil }
        let start = logsAnswers ? ContinuousClock.now : nil
        let path = Self.path(ofOriginForm: request.uri)
        let fields = request.headers
        let accept = Self.field("accept", in: fields)
        let ifNoneMatch = Self.field("if-none-match", in: fields)
        let clientHints = service.readsClientHints ? ImgproxyClientHints { Self.field($0, in: fields) } : nil
        let key = PreparedAnswers.Key(path: path, accept: accept, clientHints: clientHints)
        if ifNoneMatch == nil, let (kept, head) = answers.answer(for: key, isHead: isHead, date: date), service.isInMemory(kept.stamp) {
            hotAnswers.increment()
            kept.counter.increment()
            if let start { log(status: kept.status, cacheType: "memory", method: isHead ? .head : .get, path: path, elapsed: ContinuousClock.now - start) }
            return (head, isHead ? nil : kept.body)
        }
        guard let (answer, stamp) = service.cachedAnswerAndStamp(path: path, accept: accept, ifNoneMatch: ifNoneMatch, clientHints: clientHints),
            let head = heads.head(for: answer, isHead: isHead, make: { parts(answer, head: isHead).head })
        else {
            return nil
        }
        let body = isHead ? nil : bodyBuffer(answer)
        hotAnswers.increment()
        finish(answer, method: isHead ? .head : .get, path: path, elapsed: start.map { ContinuousClock.now - $0 } ?? .zero)
        if ifNoneMatch == nil, let other = heads.head(for: answer, isHead: !isHead, make: { parts(answer, head: !isHead).head }) {
            let (get, headOnly) = isHead ? (other, head) : (head, other)
            answers.keep(
                PreparedAnswers.Answer(
                    stamp: stamp, get: get, head: headOnly, body: isHead ? bodyBuffer(answer) : body,
                    counter: counter(status: answer.status, cacheType: answer.cacheType), status: answer.status),
                for: key)
        }
        return (head.with(date: date), body)
    }

    /// The path of a request target that starts with `/`, as Hummingbird's `URI(_:).path` gives it
    /// to respond(to:) (everything before the first `?`), without parsing the rest of the target
    /// or copying it when there is no query.
    static func path(ofOriginForm uri: String) -> String {
        // memchr over the contiguous UTF-8 (every String NIO makes is native): the generic scan
        // was 1.4 % of a hot answer under perf.
        let query: Int? = uri.utf8.withContiguousStorageIfAvailable { bytes in
            guard let base = bytes.baseAddress, let found = memchr(base, Int32(UInt8(ascii: "?")), bytes.count) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        } ?? uri.utf8.firstIndex(of: UInt8(ascii: "?")).map { uri.utf8.distance(from: uri.utf8.startIndex, to: $0) }
        guard let query else { return uri }
        return String(uri[..<uri.utf8.index(uri.utf8.startIndex, offsetBy: query)])
    }

    /// A request field's value as `HTTPFields` gives it: every line of that name joined by ", ",
    /// nil when there is none.
    static func field(_ name: String, in headers: HTTPHeaders) -> String? {
        let values = headers[name]
        switch values.count {
        case 0: return nil
        case 1: return values[0]
        default: return values.joined(separator: ", ")
        }
    }
}
