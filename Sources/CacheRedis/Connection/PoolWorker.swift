import CHiredis
import Foundation
import ImageKernel
import Logging

/// A thread that owns one ``RedisConnection`` and runs what is queued for it, pipelined.
///
/// Requests wait in a queue; the thread takes everything queued (up to ``maxBatch``), sends it as
/// one pipeline and completes each request with its own reply. Blocking network calls happen on
/// this thread only, never on the cooperative pool. After a failed connect or a timeout the
/// worker answers at once with that failure until ``retryInterval`` has passed, so a dead or
/// stalled server costs one timeout, not one per request.
final class PoolWorker: @unchecked Sendable {
    // @unchecked: `queue`, `stopping`, `started` and `retryAt` are guarded by `condition`;
    // `connection` is touched only by the worker thread.
    typealias Completion = @Sendable (Result<RedisReply, RedisFailure>) -> Void

    private struct Request {
        var command: RedisCommand
        var completion: Completion
    }

    static let maxBatch = 64

    private let condition = NSCondition()
    private var queue: [Request] = []
    private var stopping = false
    private var started = false
    private var blocked: (until: ContinuousClock.Instant, failure: RedisFailure)?
    private let connection: RedisConnection
    private let retryInterval: Duration
    private let logger: Logger?

    init(endpoint: RedisCache.Endpoint, timeout: Duration, retryInterval: Duration, logger: Logger?) {
        connection = RedisConnection(endpoint: endpoint, timeout: timeout)
        self.retryInterval = retryInterval
        self.logger = logger
    }

    /// Queues a command; `completion` is called exactly once, on the worker thread.
    func submit(_ command: RedisCommand, completion: @escaping Completion) {
        condition.lock()
        if stopping {
            condition.unlock()
            completion(.failure(RedisFailure(.cancelled, "the Redis cache was released")))
            return
        }
        if let blocked, ContinuousClock.now < blocked.until {
            condition.unlock()
            completion(.failure(blocked.failure))
            return
        }
        queue.append(Request(command: command, completion: completion))
        if !started {
            started = true
            let thread = Thread { [self] in loop() }
            thread.name = "CacheRedis"
            thread.start()
        }
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once the queue is empty (queued requests still run).
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        chiredis_block_sigpipe_on_this_thread()
        while let batch = nextBatch() {
            let outcome = connection.run(batch.map(\.command))
            switch outcome {
            case .success(let replies):
                for (request, reply) in zip(batch, replies) { request.completion(.success(reply)) }
            case .failure(let failure):
                record(failure)
                for request in batch { request.completion(.failure(failure)) }
            }
        }
        connection.close()
    }

    private func nextBatch() -> [Request]? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty {
            if stopping { return nil }
            condition.wait()
        }
        let batch = Array(queue.prefix(Self.maxBatch))
        queue.removeFirst(batch.count)
        return batch
    }

    /// A failed connect or a timeout blocks the worker for `retryInterval`; a lost connection
    /// (a restarted server) does not: the next request connects again at once.
    private func record(_ failure: RedisFailure) {
        logger?.warning("shared cache unavailable", metadata: ["code": "\(failure.code)", "error": "\(failure.message)"])
        guard failure.code == .cannotConnect || failure.code == .timeout, retryInterval > .zero else { return }
        condition.lock()
        blocked = (ContinuousClock.now + retryInterval, failure)
        condition.unlock()
    }
}
