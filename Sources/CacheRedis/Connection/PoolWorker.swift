import Foundation
import ImageKernel
import Logging

/// One ``RedisConnection`` and the callers using it, pipelined, with no thread of its own.
///
/// A caller writes its command to the socket at once, on its own thread, even while earlier
/// commands wait for their replies, so the server always has the next command and never waits
/// for the client. Replies come back in order, and the caller whose reply is next reads it: the
/// first caller on an idle connection reads its own reply on its own thread (one round trip, no
/// hand-off), later callers suspend, and each reader, once it has its reply, resumes the owner of
/// the next one to read that. Every caller is resumed once, for its reply or with the failure.
///
/// Network waits block the reading caller's thread, bounded by the connection's timeout (50 ms
/// by default); a failed read closes the connection and fails every command in flight. While the
/// connection is down, the first caller connects and the others wait for it; their commands go
/// out together when it is up. After a failed connect or a timeout the worker answers at once
/// with that failure until ``retryInterval`` has passed, so a dead or stalled server costs one
/// timeout, not one per request.
final class PoolWorker: Sendable {
    typealias Outcome = Result<RedisReply, RedisFailure>

    /// What a caller does once its command is handed in, at once or when resumed.
    private enum Turn: Sendable {
        /// Its command failed with the connection (it never has a reply of its own to read).
        case failed(RedisFailure)
        /// Its reply is next on the wire: read it, then pass the turn on.
        case read
        /// The connection is down and its command is first in line: connect, send, read.
        case connect
    }

    private typealias Waiter = CheckedContinuation<Turn, Never>

    private struct State: Sendable {
        /// Callers whose command is on the wire, in order. The first is reading (its entry is
        /// nil then), the others are suspended.
        var inFlight: [Waiter?] = []
        /// Commands waiting for the connection while a caller connects (that caller's is first, without a waiter).
        var unsent: [(bytes: [UInt8], waiter: Waiter?)] = []
        var blocked: (until: ContinuousClock.Instant, failure: RedisFailure)?

        /// The failure to answer with while a recent connect or timeout failure holds.
        func blockingFailure() -> RedisFailure? {
            guard let blocked, ContinuousClock.now < blocked.until else { return nil }
            return blocked.failure
        }

        /// A failed connect or a timeout blocks the worker for `interval`; a lost connection (a
        /// restarted server) does not: the next request connects again at once.
        mutating func block(after failure: RedisFailure, for interval: Duration) {
            guard failure.code == .cannotConnect || failure.code == .timeout, interval > .zero else { return }
            blocked = (ContinuousClock.now + interval, failure)
        }
    }

    /// Held while writing to the socket, connecting it in or closing it; `true` while connected.
    /// Taken before `state` whenever both are held, so commands enter `inFlight` in the order they go on the wire.
    private let wire = Locked(false)
    private let state = Locked(State())
    private let connection: RedisConnection
    private let retryInterval: Duration
    private let logger: Logger?

    init(endpoint: RedisCache.Endpoint, timeout: Duration, retryInterval: Duration, readOnly: Bool = false, logger: Logger?) {
        connection = RedisConnection(endpoint: endpoint, timeout: timeout, readOnly: readOnly)
        self.retryInterval = retryInterval
        self.logger = logger
    }

    /// Commands in flight or waiting for the connection: how busy it is, as a hint (it changes at once).
    var load: Int { state.withLock { $0.inFlight.count + $0.unsent.count } }

    /// The reply to the encoded command when the connection is idle or blocked by a recent
    /// failure (answered without suspending); nil when other commands are in flight or it is connecting.
    /// `replies`: how many replies the bytes ask for (`ASKING` before a command: 2); the last is returned.
    func runIfIdle(_ command: [UInt8], replies: Int = 1) -> Outcome? {
        submit(command, waiter: nil).map { take($0, replies: replies) }
    }

    /// The reply to the encoded command (the last of `replies`), or why the connection could not give one.
    func run(_ command: [UInt8], replies: Int = 1) async -> Outcome {
        if let outcome = runIfIdle(command, replies: replies) { return outcome }
        let turn = await withCheckedContinuation { (waiter: Waiter) in
            // A turn now means the caller was not queued: it carries on without suspending.
            if let turn = submit(command, waiter: waiter) { waiter.resume(returning: turn) }
        }
        if case .read = turn {
            // The reader that resumed us released `state` after its last use of the connection;
            // taking it orders that use before ours by the lock itself, which ThreadSanitizer
            // sees (it missed the edge through the continuation in the CLI's TSan build).
            state.withLock { _ in }
        }
        return take(turn, replies: replies)
    }

    private func take(_ turn: Turn, replies: Int) -> Outcome {
        switch turn {
        case .read: return readOwnReply(replies)
        case .connect: return connectAndRead(replies)
        case .failed(let failure): return .failure(failure)
        }
    }

    /// Puts the command on the wire (or in line for the connection) and says what the caller does
    /// next; nil when it waits for its turn. Without a waiter, only an idle connection takes the
    /// command (nil: nothing was sent).
    private func submit(_ command: [UInt8], waiter: Waiter?) -> Turn? {
        wire.withLock { connected -> Turn? in
            let (turn, queued) = state.withLock { state -> (Turn?, Bool) in
                if let failure = state.blockingFailure() { return (.failed(failure), false) }
                if !connected {
                    if state.unsent.isEmpty {
                        state.unsent.append((command, nil))
                        return (.connect, false)
                    }
                    if let waiter { state.unsent.append((command, waiter)) }
                    return (nil, false)
                }
                if state.inFlight.isEmpty {
                    state.inFlight.append(nil)
                    return (.read, true)
                }
                guard let waiter else { return (nil, false) }
                state.inFlight.append(waiter)
                return (nil, true)
            }
            // A failed send shuts the socket down: the reader fails this command with the others.
            if queued { _ = connection.send(command) }
            return turn
        }
    }

    /// Reads the reply of the first command in flight (the caller's own, the last of its
    /// `replies`), then resumes the owner of the next.
    private func readOwnReply(_ replies: Int) -> Outcome {
        var result = connection.readReply()
        for _ in 1..<max(1, replies) {
            guard case .success = result else { break }
            result = connection.readReply()
        }
        switch result {
        case .success(let reply):
            let next = state.withLock { state -> Waiter? in
                state.inFlight.removeFirst()
                guard let next = state.inFlight.first else { return nil }
                state.inFlight[0] = nil
                return next
            }
            next?.resume(returning: .read)
            return .success(reply)
        case .failure(let failure):
            let others = wire.withLock { connected -> [Waiter?] in
                connection.close()
                connected = false
                return state.withLock { state in
                    defer { state.inFlight = [] }
                    state.block(after: failure, for: retryInterval)
                    return Array(state.inFlight.dropFirst())
                }
            }
            log(failure)
            for waiter in others { waiter?.resume(returning: .failed(failure)) }
            return .failure(failure)
        }
    }

    /// Connects (the caller's command is first in `unsent`), sends what waited meanwhile, and reads
    /// the caller's reply; when connecting fails, every waiting command fails with it.
    private func connectAndRead(_ replies: Int) -> Outcome {
        let failure = connection.connect()
        let failed = wire.withLock { connected -> [Waiter?]? in
            let unsent = state.withLock { state in
                defer { state.unsent = [] }
                if let failure { state.block(after: failure, for: retryInterval) }
                if failure == nil { state.inFlight = state.unsent.map(\.waiter) }
                return state.unsent
            }
            guard failure == nil else { return unsent.dropFirst().map(\.waiter) }
            connected = true
            _ = connection.send(unsent.flatMap(\.bytes))
            return nil
        }
        guard let failure else { return readOwnReply(replies) }
        log(failure)
        for waiter in failed ?? [] { waiter?.resume(returning: .failed(failure)) }
        return .failure(failure)
    }

    private func log(_ failure: RedisFailure) {
        logger?.warning("shared cache unavailable", metadata: ["code": "\(failure.code)", "error": "\(failure.message)"])
    }
}
