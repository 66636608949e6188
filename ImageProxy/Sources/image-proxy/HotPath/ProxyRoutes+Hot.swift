import HTTPTypes
import HummingbirdCore
import ImageProxyCore
import NIOCore
import NIOHTTP1

extension ProxyRoutes {
    /// The answer for `request` when its result is already in memory (see
    /// `ImageProxyService.cachedAnswer`), counted and logged as ``respond(to:)`` counts and logs
    /// it, its head prepared once (``PreparedHeads``); nil for everything else: other methods,
    /// requests that do not keep the connection alive, paths not answered before, results no
    /// longer in memory. Called on an event loop: it never waits.
    func hotAnswer(_ request: HTTPRequestHead) -> (head: PreparedHead, body: ByteBuffer?)? {
        let isHead = request.method == .HEAD
        guard request.method == .GET || isHead, request.isKeepAlive, request.uri.utf8.first == UInt8(ascii: "/") else { return nil }
        let clock = ContinuousClock()
        let start = clock.now
        let path = Self.path(ofOriginForm: request.uri)
        let fields = request.headers
        guard let answer = service.cachedAnswer(
            path: path, accept: Self.field("accept", in: fields), ifNoneMatch: Self.field("if-none-match", in: fields),
            clientHints: service.readsClientHints ? ImgproxyClientHints { Self.field($0, in: fields) } : nil)
        else {
            return nil
        }
        guard let head = heads.head(for: answer, isHead: isHead, make: { parts(answer, head: isHead).head }) else { return nil }
        let body = isHead ? nil : bodyBuffer(answer)
        hotAnswers.increment()
        finish(answer, method: isHead ? .head : .get, path: path, elapsed: clock.now - start)
        return (head, body)
    }

    /// The path of a request target that starts with `/`, as Hummingbird's `URI(_:).path` gives it
    /// to respond(to:) (everything before the first `?`), without parsing the rest of the target
    /// or copying it when there is no query.
    static func path(ofOriginForm uri: String) -> String {
        guard let query = uri.utf8.firstIndex(of: UInt8(ascii: "?")) else { return uri }
        return String(uri[..<query])
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
