import Foundation
import ImageKernel
import Logging
import Synchronization

/// One ``RedisConnection`` and the requests waiting for it, pipelined, with no thread of its own.
///
/// The caller that finds the connection idle becomes its *driver*: it runs its own command,
/// together with everything queued meanwhile (up to ``maxBatch``), on its own thread, so an
/// uncontended query costs one round trip and no thread hand-off. A caller that finds the
/// connection busy queues its command and suspends; the driver completes it with its reply.
/// When a driver is done and commands are still queued, it hands the connection to the first
/// waiter, which drives the next batch (so no caller drives for others forever).
///
/// Network waits block the driver's thread, bounded by the connection's timeout (50 ms by
/// default). After a failed connect or a timeout the worker answers at once with that failure
/// until ``retryInterval`` has passed, so a dead or stalled server costs one timeout, not one per request.
final class PoolWorker: @unchecked Sendable {
    // @unchecked: `connection` is used only by the current driver; `state.busy` passes it from
    // one driver to the next under the mutex.
    typealias Outcome = Result<RedisReply, RedisFailure>

    /// What a queued caller is resumed with: its reply, or the connection to drive.
    private enum Turn: Sendable {
        case done(Outcome)
        case drive
    }

    private struct Waiter: Sendable {
        var command: RedisCommand
        var continuation: CheckedContinuation<Turn, Never>
    }

    private struct State: Sendable {
        var busy = false
        var queue: [Waiter] = []
        var blocked: (until: ContinuousClock.Instant, failure: RedisFailure)?

        /// The failure to answer with while a recent connect or timeout failure holds.
        func blockingFailure() -> RedisFailure? {
            guard let blocked, ContinuousClock.now < blocked.until else { return nil }
            return blocked.failure
        }
    }

    static let maxBatch = 64

    private let state = Mutex(State())
    private let connection: RedisConnection
    private let retryInterval: Duration
    private let logger: Logger?

    init(endpoint: RedisCache.Endpoint, timeout: Duration, retryInterval: Duration, logger: Logger?) {
        connection = RedisConnection(endpoint: endpoint, timeout: timeout)
        self.retryInterval = retryInterval
        self.logger = logger
    }

    /// The reply to `command` when the connection is idle (run on the calling thread) or blocked
    /// by a recent failure; nil when another caller drives it.
    func runIfIdle(_ command: RedisCommand) -> Outcome? {
        let entry = state.withLock { state -> Result<Bool, RedisFailure> in
            if let failure = state.blockingFailure() { return .failure(failure) }
            if state.busy { return .success(false) }
            state.busy = true
            return .success(true)
        }
        switch entry {
        case .failure(let failure): return .failure(failure)
        case .success(true): return drive(command)
        case .success(false): return nil
        }
    }

    /// The reply to `command`, or why the connection could not give one.
    func run(_ command: RedisCommand) async -> Outcome {
        if let outcome = runIfIdle(command) { return outcome }
        let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            let idle = state.withLock { state -> Bool in
                if !state.busy {
                    state.busy = true
                    return true
                }
                state.queue.append(Waiter(command: command, continuation: continuation))
                return false
            }
            if idle { continuation.resume(returning: .drive) }
        }
        switch turn {
        case .done(let outcome):
            return outcome
        case .drive:
            return drive(command)
        }
    }

    /// Runs `own` and what is queued as one pipeline, completes the waiters, then releases the
    /// connection or hands it to the next waiter. Called only by the caller that set `busy`.
    private func drive(_ own: RedisCommand) -> Outcome {
        let (batch, failure) = state.withLock { state -> ([Waiter], RedisFailure?) in
            let batch = Array(state.queue.prefix(Self.maxBatch - 1))
            state.queue.removeFirst(batch.count)
            return (batch, state.blockingFailure())
        }
        let outcome = failure.map { Result.failure($0) } ?? connection.run(batch.isEmpty ? [own] : [own] + batch.map(\.command))
        if failure == nil, case .failure(let failure) = outcome { record(failure) }
        let result: Outcome
        switch outcome {
        case .success(let replies):
            result = .success(replies[0])
            for (waiter, reply) in zip(batch, replies.dropFirst()) { waiter.continuation.resume(returning: .done(.success(reply))) }
        case .failure(let failure):
            result = .failure(failure)
            for waiter in batch { waiter.continuation.resume(returning: .done(.failure(failure))) }
        }
        let next = state.withLock { state -> Waiter? in
            guard !state.queue.isEmpty else {
                state.busy = false
                return nil
            }
            return state.queue.removeFirst()
        }
        next?.continuation.resume(returning: .drive)
        return result
    }

    /// A failed connect or a timeout blocks the worker for `retryInterval`; a lost connection
    /// (a restarted server) does not: the next request connects again at once.
    private func record(_ failure: RedisFailure) {
        logger?.warning("shared cache unavailable", metadata: ["code": "\(failure.code)", "error": "\(failure.message)"])
        guard failure.code == .cannotConnect || failure.code == .timeout, retryInterval > .zero else { return }
        let until = ContinuousClock.now + retryInterval
        state.withLock { $0.blocked = (until, failure) }
    }
}
