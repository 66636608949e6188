import Foundation
import ImageKernel
import Logging

/// A few ``PoolWorker``s, each with its own connection. A request joins the pipeline of the
/// first connection that is busy but not deep (fewer than ``pipelineDepth`` commands in flight),
/// else runs on an idle one, else joins the shallowest pipeline.
///
/// Why fill one pipeline before opening another: each connection with commands in flight keeps
/// one caller's thread (a thread of the cooperative pool, which has one per core) blocked in a
/// read until its reply is next. One pipeline keeps one thread waiting and lets the server read
/// several commands per read; spreading 8 requests over 2 connections kept both threads of a
/// 2-core machine waiting and woke them once per reply, at half the hit rate of one pipeline. The
/// other connections take over when a pipeline is deep (a burst, or large values ahead in line).
///
/// The callers drive the connections themselves (see ``PoolWorker``); no thread is started, and
/// a released cache closes its connections. N concurrent tasks use at most `connections` sockets.
final class ConnectionPool: Sendable {
    /// Commands in flight on one connection before a request prefers another.
    static let pipelineDepth = 16

    private let workers: [PoolWorker]

    /// `readOnly`: every connection sends `READONLY` first (a cluster replica then serves reads).
    init(endpoint: RedisCache.Endpoint, connections: Int, timeout: Duration, retryInterval: Duration, readOnly: Bool = false, logger: Logger?) {
        workers = (0..<max(1, connections)).map { _ in
            PoolWorker(endpoint: endpoint, timeout: timeout, retryInterval: retryInterval, readOnly: readOnly, logger: logger)
        }
    }

    /// The reply to `command`, or why the connection could not give one. With `asking`, `ASKING`
    /// goes first on the same connection (a cluster's `ASK` redirection) and its `+OK` is skipped.
    func run(_ command: RedisCommand, asking: Bool = false) async -> Result<RedisReply, RedisFailure> {
        let bytes = asking ? Self.asking + command.encoded() : command.encoded()
        let replies = asking ? 2 : 1
        let loads = workers.map(\.load)
        if let busy = loads.indices.first(where: { loads[$0] > 0 && loads[$0] < Self.pipelineDepth }) {
            return await workers[busy].run(bytes, replies: replies)
        }
        for index in loads.indices where loads[index] == 0 {
            if let outcome = workers[index].runIfIdle(bytes, replies: replies) { return outcome }
        }
        let shallowest = loads.indices.min { loads[$0] < loads[$1] } ?? 0
        return await workers[shallowest].run(bytes, replies: replies)
    }

    private static let asking = RedisCommand("ASKING").encoded()
}

extension ConnectionPool: CommandRouter {
    func run(_ command: RedisCommand, key: Data, isRead: Bool) async -> Result<RedisReply, RedisFailure> {
        await run(command)
    }

    func scanTargets() async -> [ConnectionPool] { [self] }
}
