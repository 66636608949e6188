import Foundation

extension Connection {
    func route(_ request: RequestHead) -> Next {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch parts.first {
        case "files" where parts.count == 2: return serveFile(parts[1], request)
        case "gate" where parts.count == 3:
            guard waitUntil(path: request.path, { server.isGateOpen(parts[1]) }) else { return .close }
            return serveFile(parts[2], request)
        case "status" where parts.count == 2:
            let status = Int(parts[1]) ?? 400
            // Query items become response headers: /status/429?Retry-After=7.
            let extra = request.query.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            // 1xx, 204 and 304 never carry a body.
            if status < 200 || status == 204 || status == 304 { return socket.send(head(status, extra)) ? .keepAlive : .close }
            return respond(status, headers: [("Content-Type", "text/plain")] + extra, body: Data("status \(status)\n".utf8))
        case "flaky" where parts.count == 3:
            // /flaky/<n>/<name>?status=429&Retry-After=1: the first n requests get the status (other
            // query items become headers), later ones the file.
            guard server.requestCount(path: request.path) <= Int(parts[1]) ?? 0 else { return serveFile(parts[2], request) }
            let status = request.query["status"].flatMap(Int.init) ?? 503
            let extra = request.query.filter { $0.key != "status" }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            return respond(status, headers: [("Content-Type", "text/plain")] + extra, body: Data("status \(status)\n".utf8))
        case "redirect" where parts.count >= 3: return redirectChain(parts)
        case "loop" where parts.count == 2:
            return respond(302, headers: [("Location", parts[1] == "a" ? "/loop/b" : "/loop/a")])
        case "redirect-to":
            return respond(302, headers: [("Location", request.query["url"] ?? "/")])
        case "stall":
            _ = waitOrClosed(milliseconds: 120_000, path: request.path)
            return .close
        case "stall-body" where parts.count == 2:
            let size = Int(parts[1]) ?? 1000
            guard socket.send(head(200, [("Content-Length", "\(size)")])), socket.send(Data(count: size / 2)) else { return .close }
            _ = waitOrClosed(milliseconds: 120_000, path: request.path)
            return .close
        case "drop" where parts.count == 2: return dropMidBody(parts[1])
        case "resumable" where parts.count == 2: return resumable(parts[1], request)
        case "endless": return endless(request.path)
        case "garbage":
            _ = socket.send("this is not HTTP at all\r\n\r\n")
            return .close
        case "big" where parts.count == 2: return big(Int(parts[1]) ?? 0, request)
        case "auth" where parts.count == 2: return basicAuth(parts[1], request)
        case "cookie" where parts.count >= 3: return cookie(parts, request)
        case "latest" where parts.count >= 3: return instanceMetadata(parts, request)
        case "s3-region" where parts.count == 3: return s3Region(parts[1], file: parts[2], request)
        case "echo-headers":
            let lines = request.headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\n" }.joined()
            return respond(200, text: lines)
        default:
            return faultRoute(parts, request) ?? respond(404, text: "no route for \(request.path)\n")
        }
    }

    private func serveFile(_ name: String, _ request: RequestHead) -> Next {
        guard let file = server.file(name) else { return respond(404, text: "no file \(name)\n") }
        if let delay = request.query["delay"].flatMap(Int.init), waitOrClosed(milliseconds: delay, path: request.path) {
            return .close
        }
        var headers: [(String, String)] = [("Content-Type", "application/octet-stream")]
        if let etag = file.etag { headers.append(("ETag", etag)) }
        if let lastModified = file.lastModified { headers.append(("Last-Modified", lastModified)) }
        let etagMatches = file.etag != nil && request.headers["if-none-match"] == file.etag
        let dateMatches = file.lastModified != nil && request.headers["if-modified-since"] == file.lastModified
        if etagMatches || (request.headers["if-none-match"] == nil && dateMatches) {
            return socket.send(head(304, headers)) ? .keepAlive : .close
        }
        let chunked = request.query["chunked"] == "1"
        let chunkSize = request.query["chunk"].flatMap(Int.init) ?? file.data.count
        let pace = request.query["pace"].flatMap(Int.init) ?? 0
        headers.append(chunked ? ("Transfer-Encoding", "chunked") : ("Content-Length", "\(file.data.count)"))
        guard socket.send(head(200, headers)) else { return .close }
        guard let gate = request.query["hold"] else {
            return sendPaced(file.data, path: request.path, chunked: chunked, chunkSize: chunkSize, pace: pace)
        }
        // Half the body now, the rest once the gate opens.
        let half = file.data.count / 2
        guard sendPaced(file.data.prefix(half), path: request.path, chunked: chunked, chunkSize: half, pace: 0, end: false) == .keepAlive,
              waitUntil(path: request.path, { server.isGateOpen(gate) }) else { return .close }
        return sendPaced(Data(file.data.dropFirst(half)), path: request.path, chunked: chunked, chunkSize: chunkSize, pace: pace)
    }

    private func redirectChain(_ parts: [String]) -> Next {
        let remaining = Int(parts[1]) ?? 0
        let rest = parts.dropFirst(2).joined(separator: "/")
        let location = remaining > 0 ? "/redirect/\(remaining - 1)/\(rest)" : "/\(rest)"
        return respond(302, headers: [("Location", location)])
    }

    private func dropMidBody(_ name: String) -> Next {
        guard let file = server.file(name) else { return respond(404, text: "no file \(name)\n") }
        _ = socket.send(head(200, [("Content-Length", "\(file.data.count)")]))
        _ = socket.send(Data(file.data.prefix(file.data.count / 2)))
        return .close
    }

    /// A file that announces `Accept-Ranges: bytes` and a strong ETag (`weak=1`: a weak one and no
    /// Last-Modified), answers `Range: bytes=N-` with 206 when `If-Range` matches (`ignoreRange=1`:
    /// always the whole file with 200), and cuts the first answer after `drop` bytes.
    private func resumable(_ name: String, _ request: RequestHead) -> Next {
        guard let file = server.file(name) else { return respond(404, text: "no file \(name)\n") }
        let weak = request.query["weak"] == "1"
        let etag = weak ? "W/\"\(file.data.count)\"" : "\"\(name)-\(file.data.count)\""
        var headers: [(String, String)] = [("Content-Type", "application/octet-stream"), ("Accept-Ranges", "bytes"), ("ETag", etag)]
        if !weak { headers.append(("Last-Modified", "Wed, 01 Jan 2025 00:00:00 GMT")) }
        var body = file.data
        var status = 200
        if request.query["ignoreRange"] != "1", let range = request.headers["range"], range.hasPrefix("bytes="), range.hasSuffix("-"),
           let start = Int(range.dropFirst(6).dropLast()), start < file.data.count,
           request.headers["if-range"].map({ $0 == etag && !weak }) ?? true {
            status = 206
            body = file.data.subdata(in: start..<file.data.count)
            headers.append(("Content-Range", "bytes \(start)-\(file.data.count - 1)/\(file.data.count)"))
        }
        headers.append(("Content-Length", "\(body.count)"))
        guard socket.send(head(status, headers)) else { return .close }
        if server.requestCount(path: request.path) == 1, let drop = request.query["drop"].flatMap(Int.init), drop < body.count {
            _ = socket.send(body.prefix(drop))
            return .close
        }
        return socket.send(body) ? .keepAlive : .close
    }

    private func endless(_ path: String) -> Next {
        guard socket.send(head(200, [("Transfer-Encoding", "chunked")])) else { return .close }
        let piece = Data(repeating: 0x55, count: 16 * 1024)
        let chunk = Data((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Data("\r\n".utf8)
        while !server.isStopped {
            if !socket.send(chunk) {
                server.recordClientClose(path: path)
                return .close
            }
        }
        return .close
    }

    private func big(_ size: Int, _ request: RequestHead) -> Next {
        let chunked = request.query["chunked"] == "1"
        guard socket.send(head(200, [chunked ? ("Transfer-Encoding", "chunked") : ("Content-Length", "\(size)")])) else {
            return .close
        }
        return sendPaced(Data(repeating: 0x42, count: size), path: request.path, chunked: chunked, chunkSize: 64 * 1024, pace: 0)
    }

    private func basicAuth(_ name: String, _ request: RequestHead) -> Next {
        let expected = "Basic " + Data("\(HTTPTestServer.user):\(HTTPTestServer.password)".utf8).base64EncodedString()
        guard request.headers["authorization"] == expected else {
            return respond(401, headers: [("WWW-Authenticate", "Basic realm=\"test\"")], body: Data("who are you?\n".utf8))
        }
        return serveFile(name, request)
    }

    private func cookie(_ parts: [String], _ request: RequestHead) -> Next {
        switch parts[1] {
        case "set":
            let value = request.query["value"] ?? "1"
            return respond(200, headers: [("Set-Cookie", "\(parts[2])=\(value); Path=/")], body: Data("set\n".utf8))
        case "check" where parts.count == 4:
            guard request.cookies[parts[2]] != nil else { return respond(403, text: "no cookie \(parts[2])\n") }
            return serveFile(parts[3], request)
        default:
            return respond(404, text: "no route\n")
        }
    }
}
