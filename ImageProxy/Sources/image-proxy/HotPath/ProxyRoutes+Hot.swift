import HTTPTypes
import HummingbirdCore
import ImageProxyCore
import NIOCore

extension ProxyRoutes {
    /// The answer for `request` when its result is already in memory (see
    /// `ImageProxyService.cachedAnswer`), counted and logged as ``respond(to:)`` counts and logs
    /// it; nil for everything else: other methods, `Connection: close`, paths not answered before,
    /// results no longer in memory. Called on an event loop: it never waits.
    func hotAnswer(_ request: HTTPRequest) -> (head: HTTPResponse, body: ByteBuffer?)? {
        guard request.method == .get || request.method == .head, request.headerFields[.connection] != "close" else { return nil }
        let clock = ContinuousClock()
        let start = clock.now
        // The path as Hummingbird's Request gives it to respond(to:).
        let path = URI(request.path ?? "").path
        guard let answer = service.cachedAnswer(
            path: path, accept: request.headerFields[.accept], ifNoneMatch: request.headerFields[.ifNoneMatch],
            clientHints: Self.clientHints(request.headerFields, readBy: service))
        else {
            return nil
        }
        let sent = parts(answer, head: request.method == .head)
        hotAnswers.increment()
        finish(answer, method: request.method, path: path, elapsed: clock.now - start)
        return sent
    }
}
