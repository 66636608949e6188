import Foundation
import ImageKernel
import Logging
import Synchronization

/// A few ``PoolWorker``s, each with its own connection: a request runs on the first idle one
/// (round-robin from a rotating start), or joins the pipeline of one when all are busy.
///
/// The callers drive the connections themselves (see ``PoolWorker``); no thread is started, and
/// a released cache closes its connections. N concurrent tasks use at most `connections` sockets.
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
        let bytes = command.encoded()
        let ticket = UInt(bitPattern: next.wrappingAdd(1, ordering: .relaxed).oldValue)
        let first = Int(ticket % UInt(workers.count))
        for offset in 0..<workers.count {
            if let outcome = workers[(first + offset) % workers.count].runIfIdle(bytes) { return outcome }
        }
        return await workers[first].run(bytes)
    }
}
