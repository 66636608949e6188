import Foundation

/// Where a command goes: one server's pool, or the node of a cluster that serves the key.
protocol CommandRouter: Sendable {
    /// The reply to `command` about `key` (the key decides the cluster node; `isRead` lets a
    /// cluster answer from a replica), or why no node could give one in time.
    func run(_ command: RedisCommand, key: Data, isRead: Bool) async -> Result<RedisReply, RedisFailure>
    /// The pools to `SCAN` for every key: the server, or each master of a cluster.
    func scanTargets() async -> [ConnectionPool]
}
