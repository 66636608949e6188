import Foundation
import ImageKernel
import Logging
import Synchronization

/// A few ``PoolWorker``s, each with its own connection: a request runs on the first idle one
/// (round-robin from a rotating start), or queues on one when all are busy.
///
/// A connection is driven by whichever caller finds it idle (see ``PoolWorker``); no thread is
/// started, and a released cache closes its connections.
///
/// Concurrent requests that land on one worker share its pipeline, so N tasks use at most
/// `connections` sockets and a burst is sent in a few writes.
final class ConnectionPool: Sendable {
    private let workers: [PoolWorker]
    private let next = Atomic<Int>(0)

    init(endpoint: RedisCache.Endpoint, connections: Int, timeout: Duration, retryInterval: Duration, logger: Logger?) {
        workers = (0..<max(1, connections)).map { _ in
            PoolWorker(endpoint: endpoint, timeout: timeout, retryInterval: retryInterval, logger: logger)
        }
    }

    /// The reply to `command`, or why the connection could not give one.
    func run(_ command: RedisCommand) async -> Result<RedisReply, RedisFailure> {
        let ticket = UInt(bitPattern: next.wrappingAdd(1, ordering: .relaxed).oldValue)
        let first = Int(ticket % UInt(workers.count))
        for offset in 0..<workers.count {
            if let outcome = workers[(first + offset) % workers.count].runIfIdle(command) { return outcome }
        }
        return await workers[first].run(command)
    }
}
