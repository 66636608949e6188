import Foundation
import Glibc

/// HTTP/1.1 over a plain socket, for what URLSession hides: header order and repeats, several
/// requests on one connection (pipelined in one write), and whether the server closes it.
/// Every read waits at most `timeout` (SO_RCVTIMEO).
final class RawHTTP {
    struct Response: Equatable {
        var status: Int
        /// Header fields in the order sent, names lowercased.
        var headers: [(name: String, value: String)]
        var body: Data
        /// The status line and fields as sent, without the blank line (not compared by `==`).
        var rawHead = ""

        func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

        static func == (a: Response, b: Response) -> Bool {
            a.status == b.status && a.body == b.body && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
        }

        /// The same response without the named fields (`date`, which moves each second).
        func without(_ names: Set<String>) -> Response {
            Response(status: status, headers: headers.filter { !names.contains($0.name) }, body: body)
        }
    }

    private let socket: Int32
    private var buffer = Data()
    private(set) var closedByServer = false

    init(port: Int, timeout: Duration = .seconds(20)) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestFailure("socket: errno \(errno)") }
        var wait = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw TestFailure("connect: errno \(errno)")
        }
    }

    deinit { close(socket) }

    /// A request's bytes: `GET path` (or `method`), `Host`, then `headers` in order.
    static func request(_ path: String, method: String = "GET", headers: [(String, String)] = [], version: String = "HTTP/1.1") -> String {
        "\(method) \(path) \(version)\r\nHost: 127.0.0.1\r\n" + headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n"
    }

    /// Sends `requests` in one write.
    func send(_ requests: String...) throws {
        let bytes = Array(requests.joined().utf8)
        var done = 0
        while done < bytes.count {
            let wrote = bytes[done...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard wrote > 0 else { throw TestFailure("send: errno \(errno)") }
            done += wrote
        }
    }

    /// The next response; `head`: the answer to a HEAD request (no body, whatever its length).
    func response(head: Bool = false) throws -> Response {
        let end = Data("\r\n\r\n".utf8)
        var range = buffer.range(of: end)
        while range == nil {
            try fill()
            range = buffer.range(of: end)
        }
        let rawHead = String(decoding: buffer[buffer.startIndex..<range!.lowerBound], as: UTF8.self)
        let lines = rawHead.components(separatedBy: "\r\n")
        buffer.removeSubrange(buffer.startIndex..<range!.upperBound)
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw TestFailure("bad status line \(lines[0])") }
        let headers = lines.dropFirst().map { line -> (name: String, value: String) in
            let colon = line.firstIndex(of: ":") ?? line.endIndex
            return (line[..<colon].lowercased(), line[colon...].dropFirst().trimmingCharacters(in: .whitespaces))
        }
        var length = headers.first { $0.name == "content-length" }.flatMap { Int($0.value) } ?? 0
        if head || status == 304 { length = 0 }
        while buffer.count < length { try fill() }
        let body = Data(buffer.prefix(length))
        buffer.removeFirst(length)
        return Response(status: status, headers: headers, body: body, rawHead: rawHead)
    }

    /// Waits (up to the timeout) for the server to close the connection; false when it sent more
    /// bytes instead, or did not close.
    func waitForClose() -> Bool {
        guard buffer.isEmpty else { return false }
        do { try fill() } catch { return closedByServer }
        return false
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if count == 0 {
            closedByServer = true
            throw TestFailure("the server closed the connection")
        }
        guard count > 0 else { throw TestFailure("recv: errno \(errno) (timed out?)") }
        buffer.append(contentsOf: chunk[..<count])
    }
}
