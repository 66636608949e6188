import Foundation
import ImageKernel
#if canImport(Glibc)
import Glibc
#endif

/// A server on a free port of 127.0.0.1 that answers every connection with ``response``, byte
/// for byte, after reading the request head, then closes it.
final class RawResponseServer: Sendable {
    let port: Int
    let response = Locked(Data())
    private let listener: Int32

    init() {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        precondition(listener >= 0, "socket failed")
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        precondition(bound && listen(listener, 64) == 0, "bind or listen failed")
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [listener, response] in Self.serve(listener, response) }
        thread.start()
    }

    private static func serve(_ listener: Int32, _ response: Locked<Data>) {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            var timeout = timeval(tv_sec: 1, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            readHead(client)
            let bytes = response.withLock { $0 }
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let sent = send(client, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                    if sent <= 0 { break }
                    offset += sent
                }
            }
            shutdown(client, Int32(SHUT_WR))
            close(client)
        }
    }

    /// Reads until the blank line that ends a request head (or the peer stops sending).
    private static func readHead(_ client: Int32) {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.count <= 8192 {
            let count = recv(client, &buffer, buffer.count, 0)
            if count <= 0 { return }
            head.append(contentsOf: buffer[0..<count])
            if endsHead(head) { return }
        }
    }

    /// Whether `bytes` hold CR LF CR LF.
    private static func endsHead(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4 else { return false }
        return (0...(bytes.count - 4)).contains { bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10 }
    }
}
