import Foundation
import ImageKernel
#if canImport(Glibc)
import Glibc
#endif

/// A listening socket on 127.0.0.1 that serves each accepted connection on a thread of its own
/// (connections are numbered from 0 in accept order) and shuts every one down on ``stop()``.
final class ConnectionThreads: Sendable {
    private struct State {
        var connections = 0
        var sockets: [Int32: Socket] = [:]
        var stopped = false
    }

    private let listener: ListeningSocket
    private let state = Locked(State())

    init() throws {
        signal(SIGPIPE, SIG_IGN)
        listener = try ListeningSocket()
    }

    /// The port on 127.0.0.1.
    var port: Int { listener.port }

    /// Connections accepted so far.
    var connectionCount: Int { state.withLock { $0.connections } }

    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Starts accepting; `serve` runs on the connection's thread, which closes the socket after it.
    func start(name: String, serve: @escaping @Sendable (Socket, Int) -> Void) {
        let thread = Thread { [self] in
            while let socket = listener.accept() {
                let number: Int? = state.withLock { state in
                    guard !state.stopped else { return nil }
                    state.sockets[socket.fd] = socket
                    defer { state.connections += 1 }
                    return state.connections
                }
                guard let number else { socket.close(); continue }
                let thread = Thread { [self] in
                    serve(socket, number)
                    state.withLock { _ = $0.sockets.removeValue(forKey: socket.fd) }
                    socket.close()
                }
                thread.name = "\(name).connection"
                thread.start()
            }
            listener.close()
        }
        thread.name = "\(name).accept"
        thread.start()
    }

    /// Stops accepting, shuts every connection down. Idempotent.
    func stop() {
        // Shut connections down under the lock: a connection thread closes its descriptor only
        // after leaving the table, so no descriptor here can have been reused by someone else.
        let first: Bool = state.withLock { state in
            guard !state.stopped else { return false }
            state.stopped = true
            for socket in state.sockets.values { _ = shutdown(socket.fd, Int32(SHUT_RDWR)) }
            return true
        }
        if first { listener.shutdown() }
    }
}
