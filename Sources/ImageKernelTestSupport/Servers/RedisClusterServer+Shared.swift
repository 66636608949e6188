import Foundation

extension RedisClusterServer {
    /// Started once, on first use (a static `let` is initialised once, thread-safely).
    private static let sharedCluster: Result<RedisClusterServer, ServerError> = {
        do {
            let cluster = try RedisClusterServer()
            atexit { try? RedisClusterServer.sharedCluster.get().stop() }
            return .success(cluster)
        } catch {
            return .failure(error as? ServerError ?? ServerError("\(error)"))
        }
    }()

    /// The process's one cluster, started on first use and stopped when the process exits: for
    /// suites that only read and write (a test that kills or fails over nodes starts its own).
    public static func shared() throws -> RedisClusterServer { try sharedCluster.get() }
}
