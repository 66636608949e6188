import Foundation

/// A request as the test server saw it.
public struct RecordedRequest: Sendable, Hashable {
    /// Arrival order across the whole server, from 0.
    public let sequence: Int
    /// The connection it came on (connections are numbered from 0 in accept order).
    public let connection: Int
    public let method: String
    /// The path without the query.
    public let path: String
    public let query: [String: String]
    /// Header names lower-cased.
    public let headers: [String: String]
    /// When its head was read (for tests of pacing and pauses).
    public var arrival = ContinuousClock.now
}

/// Parses a request head (request line and headers, without the blank line).
struct RequestHead {
    let method: String
    let path: String
    let query: [String: String]
    let headers: [String: String]

    init?(_ text: String) {
        var lines = text.components(separatedBy: "\r\n")
        let parts = lines.removeFirst().split(separator: " ")
        guard parts.count == 3 else { return nil }
        method = String(parts[0])
        let target = String(parts[1])
        let components = URLComponents(string: target)
        path = components?.percentEncodedPath ?? target
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        self.query = query
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        self.headers = headers
    }

    var cookies: [String: String] {
        var result: [String: String] = [:]
        for pair in (headers["cookie"] ?? "").split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { result[parts[0]] = parts[1] }
        }
        return result
    }

    var wantsClose: Bool { headers["connection"]?.lowercased() == "close" }
}

/// Reads requests off one connection, keeping bytes that arrive early for the next request.
struct RequestReader {
    let socket: Socket
    private var buffer = Data()

    init(socket: Socket) { self.socket = socket }

    /// The next request head; nil when the peer closed or sent garbage. A request body announced
    /// with Content-Length is read and dropped.
    mutating func next() -> RequestHead? {
        let separator = Data("\r\n\r\n".utf8)
        while true {
            if let end = buffer.range(of: separator) {
                let headText = String(decoding: buffer[buffer.startIndex..<end.lowerBound], as: UTF8.self)
                buffer = Data(buffer[end.upperBound...])
                guard let head = RequestHead(headText) else { return nil }
                var remaining = Int(head.headers["content-length"] ?? "0") ?? 0
                while remaining > 0 {
                    if buffer.isEmpty { guard let more = socket.receive() else { return nil }; buffer.append(more) }
                    let take = min(remaining, buffer.count)
                    buffer = Data(buffer.dropFirst(take))
                    remaining -= take
                }
                return head
            }
            guard buffer.count < 1 << 20, let more = socket.receive() else { return nil }
            buffer.append(more)
        }
    }
}
