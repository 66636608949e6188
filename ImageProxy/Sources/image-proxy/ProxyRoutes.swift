import Foundation
import HTTPTypes
import Hummingbird
import ImageKernel
import ImageProxyCore
import Logging
import Metrics
import NIOCore
import Prometheus
import Tracing

/// Routes requests: `/health` (503 once a graceful shutdown has begun), `/metrics`, `/gallery?list=URL`, and every other GET path as an
/// image request. Logs one line per request (status, milliseconds, cache type) and counts
/// requests by status and cache type.
final class ProxyRoutes: Sendable {
    let service: ImageProxyService
    let registry: PrometheusCollectorRegistry
    let logger: Logger
    let drain: DrainState
    private let counters = Locked<[CounterKey: Metrics.Counter]>([:])
    private let renderTimer = Metrics.Timer(label: "imageproxy_response_seconds")
    /// Requests answered on the event loop (``HotAnswerHandler``): `imageproxy_hot_answers_total`.
    let hotAnswers = Metrics.Counter(label: "imageproxy_hot_answers_total")
    /// Result bodies as buffers, shared by every answer of a result.
    let bodies: PreparedBodies
    /// Response heads of results in memory, encoded once per answer (``PreparedHeads``).
    let heads = PreparedHeads()
    /// Whole answers of results in memory, per request target (``PreparedAnswers``).
    let answers: PreparedAnswers
    /// Whether answers are logged (`info`): the log level is set once, at start.
    let logsAnswers: Bool

    /// `bodyBytes`: how many bytes of result bodies may be kept as buffers (``PreparedBodies``), and
    /// held by kept answers (``PreparedAnswers``).
    init(service: ImageProxyService, registry: PrometheusCollectorRegistry, logger: Logger, drain: DrainState, bodyBytes: Int) {
        self.service = service
        self.drain = drain
        self.registry = registry
        self.logger = logger
        logsAnswers = logger.logLevel <= .info
        bodies = PreparedBodies(limit: bodyBytes)
        answers = PreparedAnswers(bodyBytes: bodyBytes)
    }

    /// Answers `request` inside a server span (swift-distributed-tracing; a no-op until a tracer
    /// is bootstrapped), continuing the trace a `traceparent` header names when the instrument
    /// reads it. The span carries the method, path, status and cache type.
    func respond(to request: Request) async -> Response {
        var context = ServiceContext.topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &context, using: HTTPFieldsExtractor())
        return await withSpan(Self.spanName(request), context: context, ofKind: .server) { span in
            span.attributes["http.request.method"] = request.method.rawValue
            span.attributes["url.path"] = String(request.uri.path.prefix(300))
            let (response, answer) = await route(request)
            span.attributes["http.response.status_code"] = answer.status
            span.attributes["imageproxy.cache"] = answer.cacheType
            if answer.status >= 500 { span.setStatus(SpanStatus(code: .error)) }
            return response
        }
    }

    /// `GET /health`, or `GET /{signature}/{spec}/plain/{source}` for image paths: a route, not
    /// the path, so span names stay few.
    static func spanName(_ request: Request) -> String {
        switch request.uri.path {
        case "/health", "/metrics", "/gallery", "/", "/favicon.ico": return "\(request.method) \(request.uri.path)"
        default: return "\(request.method) /{signature}/{spec}/plain/{source}"
        }
    }

    private func route(_ request: Request) async -> (Response, ProxyResponse) {
        let clock = ContinuousClock()
        let start = clock.now
        let path = request.uri.path
        let answer: ProxyResponse
        if request.method != .get && request.method != .head {
            answer = .error(ProxyError(status: 405, code: "method_not_allowed", message: "only GET and HEAD"))
        } else {
            switch path {
            case "/health" where drain.isDraining:
                answer = ProxyResponse(
                    status: 503, headers: [("Content-Type", "text/plain"), ("Content-Length", "9"), ("Connection", "close")], body: Data("stopping\n".utf8))
            case "/health":
                answer = ProxyResponse(status: 200, headers: [("Content-Type", "text/plain"), ("Content-Length", "3")], body: Data("ok\n".utf8))
            case "/metrics":
                let text = registry.emitToBuffer()
                answer = ProxyResponse(
                    status: 200, headers: [("Content-Type", "text/plain; version=0.0.4"), ("Content-Length", "\(text.count)")], body: Data(text))
            case "/gallery":
                answer = await service.gallery(list: request.uri.queryParameters["list"].map(String.init))
            case "/", "/favicon.ico":
                answer = .error(ProxyError(status: 404, code: "not_found", message: "image paths look like /{signature}/{spec}/plain/{source URL}"))
            default:
                answer = await service.respond(
                    path: path, accept: request.headers[.accept], ifNoneMatch: request.headers[.ifNoneMatch],
                    clientHints: Self.clientHints(request.headers, readBy: service))
            }
        }
        finish(answer, method: request.method, path: path, elapsed: clock.now - start)
        return (response(answer, head: request.method == .head), answer)
    }

    /// Counts, times and logs an answered request (one line per request at `info`).
    func finish(_ answer: ProxyResponse, method: HTTPRequest.Method, path: String, elapsed: Duration) {
        counter(status: answer.status, cacheType: answer.cacheType).increment()
        if answer.cacheType != "memory" { renderTimer.recordNanoseconds(elapsed.nanoseconds) }
        log(status: answer.status, cacheType: answer.cacheType, method: method, path: path, elapsed: elapsed)
    }

    /// The request's line in the log (at `info`).
    func log(status: Int, cacheType: String, method: HTTPRequest.Method, path: String, elapsed: Duration) {
        logger.info("\(status) \(String(format: "%.1f", elapsed.milliseconds))ms \(cacheType) \(method) \(path.prefix(300))")
    }

    private struct CounterKey: Hashable {
        let status: Int
        let cacheType: String
    }

    /// `imageproxy_requests_total` for answers of `status` and `cacheType`.
    func counter(status: Int, cacheType: String) -> Metrics.Counter {
        let key = CounterKey(status: status, cacheType: cacheType)
        return counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Metrics.Counter(label: "imageproxy_requests_total", dimensions: [("status", "\(status)"), ("cache", cacheType)])
            counters[key] = counter
            return counter
        }
    }

    func response(_ answer: ProxyResponse, head: Bool) -> Response {
        let (responseHead, body) = parts(answer, head: head)
        return Response(status: responseHead.status, headers: responseHead.headerFields, body: body.map { ResponseBody(byteBuffer: $0) } ?? ResponseBody())
    }

    /// The head and body `answer` is sent as (the body nil for HEAD and empty bodies; the
    /// `Content-Length` of an empty body set to 0 when the answer has none, as Hummingbird does).
    func parts(_ answer: ProxyResponse, head: Bool) -> (head: HTTPResponse, body: ByteBuffer?) {
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        guard !head, let body = bodyBuffer(answer) else {
            if !fields.contains(.contentLength) { fields[.contentLength] = "0" }
            return (HTTPResponse(status: .init(code: answer.status), headerFields: fields), nil)
        }
        return (HTTPResponse(status: .init(code: answer.status), headerFields: fields), body)
    }

    /// The buffer `answer`'s body is sent from (nil when it is empty): for results in memory, the
    /// one made before (``PreparedBodies``).
    func bodyBuffer(_ answer: ProxyResponse) -> ByteBuffer? {
        guard !answer.body.isEmpty else { return nil }
        // Results in memory only: their ETags are digests of what made them (a passed-through
        // source's is the origin's own, which another source may share).
        // The name as `success` writes it: ProxyResponse.header(_:) compares through Foundation
        // (CFStringCompare and NSString.getCharacters: 1.7 % of a hot answer under perf, 0.6 µs).
        let etag = answer.status == 200 && answer.cacheType == "memory" ? answer.headers.first { $0.name == "ETag" }?.value : nil
        return bodies.buffer(for: answer.body, etag: etag)
    }
}

extension Duration {
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
    var milliseconds: Double { Double(nanoseconds) / 1e6 }
}

/// Reads trace context (`traceparent`, `tracestate`, …) from request headers.
struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from carrier: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { carrier[$0] }
    }
}
