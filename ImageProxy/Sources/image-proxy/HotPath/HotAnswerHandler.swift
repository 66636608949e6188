import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers requests for results already in memory on the connection's event loop, without
/// handing them to a task: the hot path (issue 46).
///
/// Hummingbird runs every request as a Swift task, so a cached answer used to cross from the
/// event loop to the cooperative pool and back; at one connection those hand-offs were most of
/// its latency. This handler sits between the HTTP decoder and Hummingbird's own handlers. For
/// each request head it asks ``ProxyRoutes/hotAnswer(_:)`` (a synchronous lookup: routes, then the
/// result cache); when that finds the answer it writes it here (the same status, headers and body
/// as the route gives, with the `Date` Hummingbird adds) and drops the request's body. Everything
/// else passes on unchanged.
///
/// Order: a request is answered here only when no request handed on is still waiting for its
/// response (counted by the responses' `end` parts that pass back through this handler), so
/// pipelined answers never overtake one another. A connection whose socket is not writable, and a
/// request with `Connection: close`, go the ordinary way (its back-pressure and its closing).
final class HotAnswerHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let routes: ProxyRoutes
    /// Requests handed on whose response has not ended yet.
    private var handedOn = 0
    /// Whether the parts read now belong to a request answered here (its body, then its end).
    private var dropping = false
    /// Whether answers were written since the last flush.
    private var unflushed = false
    private var date = HTTPDateText()

    init(routes: ProxyRoutes) { self.routes = routes }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if handedOn == 0, context.channel.isWritable, let answer = routes.hotAnswer(request) {
                dropping = true
                var head = answer.head
                head.headerFields[.date] = date.now()
                context.write(wrapOutboundOut(.head(head)), promise: nil)
                if let body = answer.body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
                context.write(wrapOutboundOut(.end(nil)), promise: nil)
                unflushed = true
                return
            }
            dropping = false
            handedOn += 1
        case .body:
            if dropping { return }
        case .end:
            if dropping {
                dropping = false
                return
            }
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if unflushed {
            unflushed = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), handedOn > 0 { handedOn -= 1 }
        context.write(data, promise: promise)
    }
}
