import Foundation

/// Serves the requests of one connection, one after another (HTTP/1.1 keep-alive).
struct Connection {
    let server: HTTPTestServer
    let socket: Socket
    let number: Int

    /// What to do with the connection after a response.
    enum Next { case keepAlive, close }

    func serve() {
        var reader = RequestReader(socket: socket)
        while !server.isStopped, let head = reader.next() {
            server.record(head, connection: number)
            if route(head) == .close || head.wantsClose { return }
        }
    }

    // MARK: Writing responses

    static let reasons: [Int: String] = [
        200: "OK", 204: "No Content", 301: "Moved Permanently", 302: "Found", 304: "Not Modified",
        400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
        408: "Request Timeout", 429: "Too Many Requests", 500: "Internal Server Error",
        503: "Service Unavailable",
    ]

    func head(_ status: Int, _ headers: [(String, String)]) -> String {
        var text = "HTTP/1.1 \(status) \(Self.reasons[status] ?? "Status")\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return text + "\r\n"
    }

    /// A complete response with a Content-Length.
    func respond(_ status: Int, headers: [(String, String)] = [], body: Data = Data()) -> Next {
        var all = headers
        all.append(("Content-Length", "\(body.count)"))
        let sent = socket.send(head(status, all)) && (body.isEmpty || socket.send(body))
        return sent ? .keepAlive : .close
    }

    func respond(_ status: Int, text: String) -> Next {
        respond(status, headers: [("Content-Type", "text/plain")], body: Data(text.utf8))
    }

    /// Sends a body as chunks of `chunkSize`, pausing `pace` ms between them, with or without
    /// chunked encoding. Returns .close (after recording) if the client went away.
    func sendPaced(_ body: Data, path: String, chunked: Bool, chunkSize: Int, pace: Int, end: Bool = true) -> Next {
        let body = Data(body)
        var offset = 0
        while offset < body.count {
            let end = min(body.count, offset + max(1, chunkSize))
            let piece = body[offset..<end]
            let ok = chunked
                ? socket.send(String(piece.count, radix: 16) + "\r\n") && socket.send(Data(piece)) && socket.send("\r\n")
                : socket.send(Data(piece))
            guard ok else { server.recordClientClose(path: path); return .close }
            offset = end
            if pace > 0 && offset < body.count && waitOrClosed(milliseconds: pace, path: path) { return .close }
        }
        if chunked && end && !socket.send("0\r\n\r\n") { server.recordClientClose(path: path); return .close }
        return .keepAlive
    }

    /// Sleeps up to `milliseconds` while watching the client. Returns true (after recording) when
    /// the client closed the connection or the server stopped.
    func waitOrClosed(milliseconds: Int, path: String, until done: () -> Bool = { false }) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        while ContinuousClock.now < deadline {
            if done() { return false }
            if server.isStopped { return true }
            if socket.peerClosed(waitingMilliseconds: 10) {
                server.recordClientClose(path: path)
                return true
            }
        }
        return false
    }

    /// Waits (watching the client) until `condition` holds, for at most a minute. False when the
    /// client left, the server stopped or the minute passed.
    func waitUntil(path: String, _ condition: () -> Bool) -> Bool {
        if waitOrClosed(milliseconds: 60_000, path: path, until: condition) { return false }
        return condition()
    }
}
