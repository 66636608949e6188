import Foundation

/// A port on 127.0.0.1 that takes connections and never answers, for as long as this object
/// lives: the kernel completes the handshake (the socket listens) and nothing ever reads or
/// writes, as a hung server does. Clients see their request sent and wait until their own bound.
public final class SilentPort: Sendable {
    private let socket: ListeningSocket
    /// The port on 127.0.0.1.
    public var port: Int { socket.port }

    public init() throws { socket = try ListeningSocket(listening: true) }

    /// `http://127.0.0.1:PORT` + `path`.
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    deinit { socket.close() }
}
