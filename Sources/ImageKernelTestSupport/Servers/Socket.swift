#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A connected TCP socket with the few blocking operations the test server needs.
struct Socket: Sendable {
    let fd: Int32

    /// Sends all bytes; false when the peer is gone. Never raises SIGPIPE.
    @discardableResult
    func send(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                #if canImport(Glibc)
                let sent = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #else
                let sent = Darwin.send(fd, raw.baseAddress! + offset, raw.count - offset, 0)
                #endif
                if sent < 0 && errno == EINTR { continue }
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Data(text.utf8)) }

    /// Receives up to `limit` bytes; nil on end of stream or error.
    func receive(limit: Int = 65536) -> Data? {
        var buffer = [UInt8](repeating: 0, count: limit)
        while true {
            let count = recv(fd, &buffer, limit, 0)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            return Data(buffer[0..<count])
        }
    }

    /// Waits up to `milliseconds` for the peer to send or close. Returns true when the peer closed
    /// (or the socket failed); data that arrived is left unread.
    func peerClosed(waitingMilliseconds milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, milliseconds)
        guard ready > 0 else { return false }
        if entry.revents & Int16(POLLERR | POLLHUP) != 0 { return true }
        var byte: UInt8 = 0
        let peeked = recv(fd, &byte, 1, Int32(MSG_PEEK))
        return peeked <= 0
    }

    func close() {
        _ = shutdown(fd, Int32(SHUT_RDWR))
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }
}

/// A listening socket on 127.0.0.1 with a port the kernel chose.
struct ListeningSocket: Sendable {
    let fd: Int32
    let port: Int

    /// - Parameter listening: false to only bind the port: connections to it are refused, and no
    ///   other socket can take it while this one is open.
    init(listening: Bool = true) throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw ServerError("socket() failed: errno \(errno)") }
        if listening {
            // Not for a port held only to refuse: with SO_REUSEADDR on both sides, a server binding
            // that port by number could share it while it does not listen.
            var yes: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, !listening || listen(fd, 1024) == 0 else {
            Socket(fd: fd).close()
            throw ServerError("bind/listen on 127.0.0.1 failed: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Waits for a connection; nil once the socket was shut down.
    func accept() -> Socket? {
        while true {
            #if canImport(Glibc)
            let client = Glibc.accept(fd, nil, nil)
            #else
            let client = Darwin.accept(fd, nil, nil)
            #endif
            if client >= 0 {
                // Responses go out as head and body writes; without NODELAY, Nagle plus the
                // client's delayed ACK would add 40 ms to every response.
                var yes: Int32 = 1
                setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
                return Socket(fd: client)
            }
            if errno == EINTR || errno == ECONNABORTED { continue }
            return nil
        }
    }

    /// Wakes `accept` for good; the accepting thread then closes the socket.
    func shutdown() {
        #if canImport(Glibc)
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
        #else
        _ = Darwin.shutdown(fd, Int32(SHUT_RDWR))
        #endif
    }

    func close() { Socket(fd: fd).close() }
}

/// A failure to start a test server.
public struct ServerError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
