import Foundation
import ImageKernelTestSupport
import Testing

/// The hot path's answers are written as prepared bytes (`PreparedHead`, past NIO's encoder):
/// byte for byte what the router sends through Hummingbird's own pipeline
/// (`--no-event-loop-answers`), but for the `Date` value, for every kind of answer, pipelined or
/// not, and the requests it leaves to the router still get the router's answer.
@Suite("image-proxy hot path: prepared answers are the router's bytes", .serialized)
struct ProxyPreparedAnswerTests {
    /// Two services on one origin: `hot` answers from the event loop, `router` only through the router.
    struct Pair {
        let origin: NginxServer
        let hot: ProxyProcess
        let router: ProxyProcess
        let path: String

        init(spec: String = "resize:fill:50:50") throws {
            origin = try Origin.start()
            hot = try ProxyProcess(["--allow-origin", origin.prefix])
            router = try ProxyProcess(["--allow-origin", origin.prefix, "--no-event-loop-answers"])
            path = Paths.plain(origin.url("photo.jpg"), spec: spec)
        }

        /// A GET of `path` on `proxy` as the raw requests send it (URLSession would add an `Accept`,
        /// which makes a route of its own).
        static func warm(_ proxy: ProxyProcess, _ path: String, headers: [(String, String)] = []) throws -> RawHTTP.Response {
            let connection = try RawHTTP(port: proxy.port)
            try connection.send(RawHTTP.request(path, headers: headers))
            return try connection.response()
        }

        /// The answers of both to `request` (each on a new connection).
        func answers(_ request: String, head: Bool = false) throws -> (hot: RawHTTP.Response, router: RawHTTP.Response) {
            let a = try RawHTTP(port: hot.port), b = try RawHTTP(port: router.port)
            try a.send(request)
            try b.send(request)
            return (try a.response(head: head), try b.response(head: head))
        }
    }

    /// The head's text with the `Date` value blanked.
    static func withoutDate(_ head: String) -> String {
        head.replacing(/(?m)^(Date|date): [^\r\n]*/) { "\($0.output.1): -" }
    }

    static func expectSame(_ answers: (hot: RawHTTP.Response, router: RawHTTP.Response), _ what: String) {
        #expect(ProxyHotPathTests.isHTTPDate(answers.hot.header("date")), "\(what): \(answers.hot.rawHead)")
        #expect(withoutDate(answers.hot.rawHead) == withoutDate(answers.router.rawHead), "\(what):\n\(answers.hot.rawHead)\n--\n\(answers.router.rawHead)")
        #expect(answers.hot.body == answers.router.body, "\(what)")
    }

    @Test func everyKindOfCachedAnswerIsTheRoutersBytes() async throws {
        let pair = try Pair()
        let accepts = ["image/webp", "image/avif,image/webp", "image/jpeg"]
        // Render once on each, and once per Accept (each is a route of its own).
        for proxy in [pair.hot, pair.router] {
            #expect(try Pair.warm(proxy, pair.path).status == 200)
            for accept in accepts { #expect(try Pair.warm(proxy, pair.path, headers: [("Accept", accept)]).status == 200) }
        }
        let before = try await ProxyHotPathTests.metric(pair.hot, "imageproxy_hot_answers_total")
        let plain = try pair.answers(RawHTTP.request(pair.path))
        Self.expectSame(plain, "GET")
        #expect(plain.hot.status == 200 && !plain.hot.body.isEmpty)
        let etag = try #require(plain.hot.header("etag"))
        Self.expectSame(try pair.answers(RawHTTP.request(pair.path, method: "HEAD"), head: true), "HEAD")
        let notModified = try pair.answers(RawHTTP.request(pair.path, headers: [("If-None-Match", etag)]))
        #expect(notModified.hot.status == 304 && notModified.hot.header("content-length") == nil)
        Self.expectSame(notModified, "304")
        Self.expectSame(try pair.answers(RawHTTP.request(pair.path, headers: [("If-None-Match", "\"other\", " + etag)])), "304 in a list")
        Self.expectSame(try pair.answers(RawHTTP.request(pair.path, method: "HEAD", headers: [("If-None-Match", etag)]), head: true), "HEAD 304")
        for accept in accepts {
            let negotiated = try pair.answers(RawHTTP.request(pair.path, headers: [("Accept", accept)]))
            #expect(negotiated.hot.header("vary") == "Accept", "\(accept)")
            Self.expectSame(negotiated, "Accept: \(accept)")
        }
        Self.expectSame(try pair.answers(RawHTTP.request(pair.path, headers: [("Connection", "keep-alive")], version: "HTTP/1.0")), "HTTP/1.0 keep-alive")
        let after = try await ProxyHotPathTests.metric(pair.hot, "imageproxy_hot_answers_total")
        #expect(after - before == 6 + accepts.count, "every one of them was answered on the event loop")
        #expect(try await ProxyHotPathTests.metric(pair.router, "imageproxy_hot_answers_total") == 0)
    }

    @Test func routesThatShareAResultKeepTheirOwnFields() async throws {
        // `filename:` changes the route's fields (Content-Disposition), not the result: both
        // answers share one ETag, so one prepared head is found for the other's answer in turn.
        let pair = try Pair()
        let named = pair.path.replacingOccurrences(of: "resize:fill:50:50", with: "resize:fill:50:50/filename:thumb")
        for proxy in [pair.hot, pair.router] {
            #expect(try Pair.warm(proxy, pair.path).status == 200)
            #expect(try Pair.warm(proxy, named).status == 200)
        }
        var tags: Set<String> = [], dispositions: [String: Set<String>] = [:]
        for round in 0..<2 {
            for path in [pair.path, named] {
                let answers = try pair.answers(RawHTTP.request(path))
                Self.expectSame(answers, "round \(round) \(path)")
                dispositions[path, default: []].insert(answers.hot.header("content-disposition") ?? "none")
                tags.insert(answers.hot.header("etag") ?? "")
            }
        }
        #expect(tags.count == 1, "one result: \(tags)")
        #expect(dispositions[pair.path]?.count == 1 && dispositions[named]?.count == 1 && dispositions[pair.path] != dispositions[named], "\(dispositions)")
    }

    @Test func requestsThatCloseTheConnectionAreLeftToTheRouter() async throws {
        let pair = try Pair()
        for proxy in [pair.hot, pair.router] { #expect(try Pair.warm(proxy, pair.path).status == 200) }
        let before = try await ProxyHotPathTests.metric(pair.hot, "imageproxy_hot_answers_total")
        for (headers, version) in [([("Connection", "close")], "HTTP/1.1"), ([], "HTTP/1.0")] {
            let answers = try pair.answers(RawHTTP.request(pair.path, headers: headers, version: version))
            Self.expectSame(answers, "\(version) \(headers)")
        }
        #expect(try await ProxyHotPathTests.metric(pair.hot, "imageproxy_hot_answers_total") == before)
    }

    @Test func pipelinedPreparedAnswersComeBackInOrderWithTheirBodies() async throws {
        let pair = try Pair()
        let warm = try Pair.warm(pair.hot, pair.path)
        let etag = try #require(warm.header("etag"))
        let before = try await ProxyHotPathTests.metric(pair.hot, "imageproxy_hot_answers_total")
        let connection = try RawHTTP(port: pair.hot.port)
        // A GET with a body too: the body is read and dropped, never taken for the next request.
        let withBody = RawHTTP.request(pair.path, headers: [("Content-Length", "5")]) + "abcde"
        try connection.send(
            RawHTTP.request(pair.path), RawHTTP.request(pair.path, method: "HEAD"), withBody,
            RawHTTP.request(pair.path, headers: [("If-None-Match", etag)]), RawHTTP.request(pair.path),
            RawHTTP.request("/health"), RawHTTP.request(pair.path), RawHTTP.request(pair.path, headers: [("Connection", "close")]))
        let answers = [
            try connection.response(), try connection.response(head: true), try connection.response(), try connection.response(),
            try connection.response(), try connection.response(), try connection.response(), try connection.response(),
        ]
        #expect(answers.map(\.status) == [200, 200, 200, 304, 200, 200, 200, 200])
        for index in [0, 2, 4, 6, 7] { #expect(answers[index].body == warm.body && answers[index].header("etag") == etag, "\(index)") }
        #expect(answers[1].body.isEmpty && answers[1].header("content-length") == "\(warm.body.count)")
        #expect(answers[5].body == Data("ok\n".utf8))
        #expect(connection.waitForClose(), "Connection: close is honoured after the pipelined answers")
        // Five from the event loop; /health through the router, and the two behind it (they wait
        // for its answer), the second also for its Connection: close.
        #expect(try await ProxyHotPathTests.metric(pair.hot, "imageproxy_hot_answers_total") == before + 5)
        let text = String(decoding: try await HTTP.get(pair.hot.url("/metrics")).body, as: UTF8.self)
        let memory = text.split(separator: "\n").filter { $0.hasPrefix("imageproxy_requests_total{") && $0.contains(#"cache="memory""#) }
        let counted = memory.compactMap { Int($0.split(separator: " ").last ?? "") }.reduce(0, +)
        #expect(counted == 7, "every answer from memory is counted: \(memory)")
    }

    /// Answers kept whole per request target (`PreparedAnswers`): the second and later requests
    /// for a target are answered from there, and still byte for byte as the router answers.
    @Test func keptAnswersAreTheRoutersBytesRoundAfterRound() async throws {
        let pair = try Pair()
        let accept = [("Accept", "image/webp")]
        for proxy in [pair.hot, pair.router] {
            #expect(try Pair.warm(proxy, pair.path).status == 200)
            #expect(try Pair.warm(proxy, pair.path, headers: accept).status == 200)
        }
        let before = try await ProxyHotPathTests.metric(pair.hot, "imageproxy_hot_answers_total")
        for round in 0..<3 {
            Self.expectSame(try pair.answers(RawHTTP.request(pair.path)), "round \(round): GET")
            Self.expectSame(try pair.answers(RawHTTP.request(pair.path, method: "HEAD"), head: true), "round \(round): HEAD")
            Self.expectSame(try pair.answers(RawHTTP.request(pair.path, headers: accept)), "round \(round): GET, Accept")
            Self.expectSame(try pair.answers(RawHTTP.request(pair.path, method: "HEAD", headers: accept), head: true), "round \(round): HEAD, Accept")
        }
        #expect(try await ProxyHotPathTests.metric(pair.hot, "imageproxy_hot_answers_total") == before + 12)
    }

    /// A kept answer is sent only while its result is in memory: once the result cache has let it
    /// go, the request goes to the router (the result comes back from disk), and the answer is
    /// kept again after that.
    @Test func aKeptAnswerFollowsItsResultOutOfMemory() async throws {
        let origin = try Origin.start()
        // 1 MB of results in memory: a few hundred results push the first one out.
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix, "--memory-mb", "1"])
        let path = Paths.plain(origin.url("photo.jpg"), spec: "resize:fill:400:400/quality:95")
        let first = try Pair.warm(proxy, path)
        #expect(first.status == 200)
        let hot = { try await ProxyHotPathTests.metric(proxy, "imageproxy_hot_answers_total") }
        let start = try await hot()
        for _ in 0..<2 { #expect(try Pair.warm(proxy, path).body == first.body) }
        #expect(try await hot() == start + 2, "the answer is found on the event loop, then kept")
        // Results of 5-10 KB (the source is 120x160): 2 MB in all.
        for size in 60..<160 {
            for quality in [95, 97, 99] {
                #expect(try Pair.warm(proxy, Paths.plain(origin.url("photo.jpg"), spec: "resize:fill:\(size):\(size)/quality:\(quality)")).status == 200)
            }
        }
        let evicted = try await hot()
        let again = try Pair.warm(proxy, path)
        #expect(again.status == 200 && again.body == first.body && again.header("etag") == first.header("etag"))
        let afterEviction = try await hot()
        #expect(afterEviction == evicted, "the result left memory: the kept answer is not sent (\(evicted) → \(afterEviction))")
        #expect(try Pair.warm(proxy, path).body == first.body)
        #expect(try await hot() == evicted + 1, "back in memory from disk, it is answered on the event loop again")
    }
}
