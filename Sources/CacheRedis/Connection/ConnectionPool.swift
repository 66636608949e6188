import Foundation
import ImageKernel
import Logging
import Synchronization

/// A few ``PoolWorker``s, each with its own connection; requests go round-robin.
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

    deinit {
        for worker in workers { worker.stop() }
    }

    /// The reply to `command`, or why the connection could not give one.
    func run(_ command: RedisCommand) async -> Result<RedisReply, RedisFailure> {
        let ticket = UInt(bitPattern: next.wrappingAdd(1, ordering: .relaxed).oldValue)
        let worker = workers[Int(ticket % UInt(workers.count))]
        return await withCheckedContinuation { continuation in
            worker.submit(command) { continuation.resume(returning: $0) }
        }
    }
}
