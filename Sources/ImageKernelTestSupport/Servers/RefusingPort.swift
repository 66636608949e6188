import Foundation

/// A port on 127.0.0.1 that refuses every connection, for as long as this object lives.
///
/// The port is bound and never listened on, so it cannot be handed to another server while the
/// test uses it (a stopped server's port can: the kernel reuses ports, and a test running beside
/// it may get that one and answer).
public final class RefusingPort: Sendable {
    private let socket: ListeningSocket
    /// The port on 127.0.0.1.
    public var port: Int { socket.port }

    public init() throws { socket = try ListeningSocket(listening: false) }

    /// `http://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    deinit { socket.close() }
}
