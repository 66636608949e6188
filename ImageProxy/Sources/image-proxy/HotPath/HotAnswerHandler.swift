import NIOCore
import NIOHTTP1

/// Answers requests for results already in memory on the connection's event loop, without
/// handing them to a task: the hot path (issue 46).
///
/// Hummingbird runs every request as a Swift task, so a cached answer used to cross from the
/// event loop to the cooperative pool and back; at one connection those hand-offs were most of
/// its latency. This handler sits right behind the HTTP decoder (``HotHTTP1Channel``). For each
/// request head it asks ``ProxyRoutes/hotAnswer(_:)`` (a synchronous lookup: routes, then the
/// result cache); when that finds the answer it writes it here as bytes: the head prepared once per
/// answer of a result (``PreparedHead``, the router's fields with the `Date` Hummingbird adds) and
/// the body's shared buffer, straight to the socket past the encoder, flushed once per read
/// (one `writev` for all the answers of a read). It drops the request's body. Everything else
/// passes on unchanged to Hummingbird's handlers.
///
/// Order: a request is answered here only when no request handed on is still waiting for its
/// response (counted by the responses' `end` parts that pass back through this handler), so
/// pipelined answers never overtake one another. A connection whose socket is not writable, and a
/// request that does not keep the connection alive (`Connection: close`, HTTP/1.0 without
/// `keep-alive`), go the ordinary way (its back-pressure and its closing).
final class HotAnswerHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let routes: ProxyRoutes
    /// The response encoder's context: bytes written through it go to the socket unencoded.
    private var wire: ChannelHandlerContext?
    /// Requests handed on whose response has not ended yet.
    private var handedOn = 0
    /// Whether the parts read now belong to a request answered here (its body, then its end).
    private var dropping = false
    /// Whether answers were written since the last flush.
    private var unflushed = false
    private var date = HTTPDateText()

    init(routes: ProxyRoutes) { self.routes = routes }

    func handlerAdded(context: ChannelHandlerContext) {
        wire = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) { wire = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if handedOn == 0, let wire, context.channel.isWritable, case let now = date.now(), now.utf8.count == PreparedHead.dateLength,
                let answer = routes.hotAnswer(request, date: now)
            {
                dropping = true
                wire.write(NIOAny(IOData.byteBuffer(answer.head)), promise: nil)
                if let body = answer.body { wire.write(NIOAny(IOData.byteBuffer(body)), promise: nil) }
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
