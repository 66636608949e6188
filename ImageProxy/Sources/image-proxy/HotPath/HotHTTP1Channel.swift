import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1.1 child channel (`HTTP1Channel`, as `.http1()` builds it: no pipelining
/// assistance, no error handler, no outbound header validation, its decoder limits) with a
/// ``HotAnswerHandler`` right behind the HTTP decoder, where it sees NIO's request heads before
/// they become `HTTPRequest`s and can write prepared answers as bytes.
///
/// One difference from `configureHTTPServerPipeline`: the response encoder is not paired with the
/// request decoder. Paired, the encoder queues every decoded request's method and pops one per
/// response head it encodes (to leave out the body of a HEAD answer); answers written as bytes
/// past the encoder would leave that queue one longer per answer, and a later response would be
/// framed for the wrong request. Unpaired, it frames by status alone, as it did before NIO paired
/// them; the router never writes a body for HEAD (``ProxyRoutes/parts(_:head:)``), so nothing
/// it sends changes (`ProxyHotPathTests` compare the bytes of both pipelines).
struct HotHTTP1Channel: HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let routes: ProxyRoutes

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            // Hummingbird's defaults (HTTP1Channel.Configuration.DecoderConfiguration).
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = 80 * 1024
            limits.maxHeaderListSize = 80 * 1024
            limits.maxHeaderFieldCount = 1000
            let decoder = HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, informationalResponseStrategy: .drop, limitConfiguration: limits)
            let operations = channel.pipeline.syncOperations
            try operations.addHandler(HTTPResponseEncoder(configuration: .init()))
            try operations.addHandler(ByteToMessageHandler(decoder))
            try operations.addHandler(HotAnswerHandler(routes: routes))
            try operations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try operations.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value asyncChannel: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: asyncChannel, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with cached results answered on the event loop (``HotHTTP1Channel``).
    static func http1(answeringFromMemory routes: ProxyRoutes) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in HotHTTP1Channel(responder: responder, routes: routes) }
    }
}
