import Foundation
import Testing

/// The hot path: results already in memory are answered on the event loop (`HotAnswerHandler`),
/// with exactly the answer the router gives (which still answers `Connection: close` requests and
/// `--no-event-loop-answers`), in order on a pipelined connection, and never for a path that was
/// not parsed and authorised itself.
@Suite("image-proxy hot path: cached answers on the event loop", .serialized)
struct ProxyHotPathTests {
    /// The value of an unlabelled metric (`name value`), 0 when absent.
    static func metric(_ proxy: ProxyProcess, _ name: String) async throws -> Int {
        let text = String(decoding: try await HTTP.get(proxy.url("/metrics")).body, as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }

    /// An IMF-fixdate, as Hummingbird writes `Date`.
    static func isHTTPDate(_ text: String?) -> Bool {
        text?.wholeMatch(of: /(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT/) != nil
    }

    @Test func aCachedAnswerFromTheEventLoopIsTheRoutersAnswerByteForByte() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let path = Paths.plain(origin.url("photo.jpg"), spec: "resize:fill:50:50")
        let rendered = try RawHTTP(port: proxy.port)
        try rendered.send(RawHTTP.request(path))
        let first = try rendered.response()
        #expect(first.status == 200 && first.header("content-type") == "image/jpeg")
        #expect(try await Self.metric(proxy, "imageproxy_hot_answers_total") == 0, "a render is not a hot answer")

        // Connection: close takes the router, which answers from memory too; then the hot path.
        let routed = try RawHTTP(port: proxy.port)
        try routed.send(RawHTTP.request(path, headers: [("Connection", "close")]))
        let fromRouter = try routed.response()
        #expect(routed.waitForClose(), "Connection: close is honoured")
        try rendered.send(RawHTTP.request(path))
        let fromLoop = try rendered.response()
        #expect(try await Self.metric(proxy, "imageproxy_hot_answers_total") == 1)
        #expect(Self.isHTTPDate(fromLoop.header("date")) && Self.isHTTPDate(fromRouter.header("date")))
        #expect(fromLoop.without(["date"]) == fromRouter.without(["date", "connection"]), "\(fromLoop.headers) / \(fromRouter.headers)")
        #expect(fromLoop.body == first.body && fromLoop.header("etag") == first.header("etag"))

        // HEAD and If-None-Match, both ways.
        let etag = try #require(first.header("etag"))
        for (method, headers) in [("HEAD", [(String, String)]()), ("GET", [("If-None-Match", etag)])] {
            let loop = try RawHTTP(port: proxy.port)
            try loop.send(RawHTTP.request(path, method: method, headers: headers))
            let hot = try loop.response(head: method == "HEAD")
            let router = try RawHTTP(port: proxy.port)
            try router.send(RawHTTP.request(path, method: method, headers: headers + [("Connection", "close")]))
            let cold = try router.response(head: method == "HEAD")
            #expect(hot.status == (method == "HEAD" ? 200 : 304))
            #expect(hot.without(["date"]) == cold.without(["date", "connection"]), "\(method): \(hot.headers) / \(cold.headers)")
        }
        #expect(try await Self.metric(proxy, "imageproxy_hot_answers_total") == 3)
        let text = String(decoding: try await HTTP.get(proxy.url("/metrics")).body, as: UTF8.self)
        #expect(text.contains(#"imageproxy_requests_total{status="200",cache="memory"} 4"#) || text.contains(#"imageproxy_requests_total{cache="memory",status="200"} 4"#), "\(text)")
        #expect(proxy.log.components(separatedBy: " memory HEAD \(path)").count - 1 == 2, "every answer is logged")
    }

    @Test func theAcceptHeaderStillChoosesTheFormat() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let path = Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:40:40")
        let connection = try RawHTTP(port: proxy.port)
        var seen: [String: String] = [:]
        for _ in 0..<2 {
            for accept in ["image/webp", "image/jpeg"] {
                try connection.send(RawHTTP.request(path, headers: [("Accept", accept)]))
                let answer = try connection.response()
                #expect(answer.header("vary") == "Accept")
                let type = try #require(answer.header("content-type"))
                if let before = seen[accept] { #expect(before == type, "\(accept)") }
                seen[accept] = type
            }
        }
        #expect(seen == ["image/webp": "image/webp", "image/jpeg": "image/jpeg"])
        #expect(try await Self.metric(proxy, "imageproxy_hot_answers_total") == 2)
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let cached = Paths.plain(origin.url("photo.jpg"), spec: "resize:fill:50:50")
        let slow = Paths.plain(origin.url("large.jpg"), spec: "resize:fill:60:40")
        let warm = try await HTTP.get(proxy.url(cached))
        let connection = try RawHTTP(port: proxy.port)
        // The render of `slow` (an 1800x1200 source, never loaded before) is still running when the
        // cached requests arrive: answered at once, they would come first.
        try connection.send(RawHTTP.request(slow), RawHTTP.request(cached), RawHTTP.request(cached, method: "HEAD"))
        let answers = [try connection.response(), try connection.response(), try connection.response(head: true)]
        let rendered = try await HTTP.get(proxy.url(slow))
        #expect(answers.map(\.status) == [200, 200, 200])
        #expect(answers[0].header("etag") == rendered.header("etag") && answers[0].body == rendered.body)
        #expect(answers[1].header("etag") == warm.header("etag") && answers[1].body == warm.body)
        #expect(answers[2].header("etag") == warm.header("etag") && answers[2].body.isEmpty)
        // Once nothing is pending, the same connection is answered on the event loop again.
        let before = try await Self.metric(proxy, "imageproxy_hot_answers_total")
        try connection.send(RawHTTP.request(cached))
        #expect(try connection.response().body == warm.body)
        #expect(try await Self.metric(proxy, "imageproxy_hot_answers_total") == before + 1)
    }

    @Test func aChangedSignatureOrSpecIsRefusedAfterTheSignedPathWasCached() async throws {
        let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
        let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix, "--key", key, "--salt", salt])
        let good = Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:50:50", key: key, salt: salt)
        for _ in 0..<3 { #expect(try await HTTP.get(proxy.url(good)).status == 200) }
        #expect(try await Self.metric(proxy, "imageproxy_hot_answers_total") == 2)
        let signature = good.dropFirst().prefix { $0 != "/" }
        let flipped = String(signature.first == "A" ? "B" : "A") + signature.dropFirst()
        let refused = [
            "/" + flipped + good.dropFirst(1 + signature.count),
            good.replacingOccurrences(of: "fit:50:50", with: "fit:51:50"),
            Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:50:50", key: salt, salt: key),
        ]
        for path in refused {
            let response = try await HTTP.get(proxy.url(path))
            #expect(response.status == 403 && response.json["error"] == "invalid_signature", "\(path)")
        }
        #expect(try await Self.metric(proxy, "imageproxy_hot_answers_total") == 2)
        #expect(try await HTTP.get(proxy.url(good)).status == 200)
    }

    @Test func theRouterAloneGivesTheSameAnswersWithoutEventLoopAnswers() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix, "--no-event-loop-answers"])
        let path = Paths.plain(origin.url("photo.jpg"), spec: "resize:fill:50:50")
        let connection = try RawHTTP(port: proxy.port)
        try connection.send(RawHTTP.request(path), RawHTTP.request(path))
        let first = try connection.response(), second = try connection.response()
        #expect(first.status == 200 && second.without(["date"]) == first.without(["date"]))
        #expect(try await Self.metric(proxy, "imageproxy_hot_answers_total") == 0)
        #expect(proxy.log.contains(" memory GET "))
    }
}
