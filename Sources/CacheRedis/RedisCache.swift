import Foundation
import ImageKernel

/// An ``ImageCache`` on Redis: the tier that a fleet of processes and machines shares.
///
/// It keeps original bytes and their validators under `keyPrefix` + the hex SHA-256 of the cache
/// key, with an optional time to live, and leaves eviction to Redis. Put it behind a local disk
/// cache: `TieredCache(memory: MemoryCache(), backing: disk, lowerTiers: [redis])`, so a Redis hit
/// lands on the local disk and in memory. For a cache, configure the server to evict:
///
/// ```
/// maxmemory 2gb
/// maxmemory-policy allkeys-lru
/// ```
///
/// ## Behaviour
/// - **Tiers.** It is a persistent tier: it answers ``ImageCacheType/disk`` and
///   ``ImageCacheType/all`` and ignores ``ImageCacheType/memory``. Its hits say
///   ``CacheQueryResult/isShared``.
/// - **The shared tier never stops a load.** Every network wait is bounded by
///   ``Configuration/timeout`` (50 ms by default). A query to an unreachable, slow or restarting
///   server is a miss; a store, remove or clear throws ``ImageKernelError`` (stage `.cache`,
///   plugin `"CacheRedis"`, code `cannotConnect`, `timeout` or `connectionLost`), which the
///   manager logs and drops. After a server restart the next operation connects again.
/// - **Pipelining.** An operation joins the pipeline of a busy connection: its command is
///   written at once, behind those in flight, and its caller is resumed to read its reply when
///   that reply is next. With nothing in flight it runs on an idle connection, on the calling
///   thread (no hand-off; the wait is bounded by the timeout). Another of the
///   ``Configuration/connections`` is used only when the busy ones have 16 commands in flight.
/// - **What it keeps.** Bytes and validators, never pixels: an entry with an image but no bytes
///   is encoded with ``Configuration/imageEncoder`` or refused with `unsupported`. A value larger
///   than ``Configuration/maxValueSize`` is refused with `tooLarge`. A refused store keeps the old entry.
/// - **Keys.** Any string is a key; only its hash reaches Redis.
/// - **Redis Cluster.** With ``Configuration/clusterSeeds`` (`redis+cluster://h1:7000,h2:7001`)
///   the tier follows the cluster's slot map, with a pipelined pool per node; `MOVED`, `ASK`,
///   `TRYAGAIN`, `READONLY` and failovers are handled, and whatever the cluster cannot answer in
///   time is a miss, as above. The Cache tiers article has the details.
public final class RedisCache: ImageCache, Sendable {
    /// The plugin name in errors.
    public static let pluginName = "CacheRedis"

    /// A short name for errors and logs: the plugin and the server (never the password).
    public let name: String
    /// What the cache was created with.
    public let configuration: Configuration
    let router: any CommandRouter
    let naming: KeyNaming

    /// A cache on the configured server or cluster. Nothing connects until the first operation.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        naming = KeyNaming(prefix: configuration.keyPrefix)
        name = configuration.isCluster
            ? "\(Self.pluginName)(cluster \(configuration.clusterSeeds.map { "\($0.host):\($0.port)" }.joined(separator: ",")))"
            : "\(Self.pluginName)(\(configuration.endpoint))"
        router = Self.makeRouter(configuration)
    }

    /// The cluster's router, or the server's pool.
    static func makeRouter(_ configuration: Configuration) -> any CommandRouter {
        guard !configuration.isCluster else { return ClusterRouter(configuration: configuration) }
        return ConnectionPool(
            endpoint: configuration.endpoint, connections: configuration.connections, timeout: configuration.timeout,
            retryInterval: configuration.retryInterval, logger: configuration.logger)
    }

    /// A cache on the server named by `redis://[:password@]host[:port][/db]`, or on the cluster
    /// named by `redis+cluster://host:port,host:port…`, otherwise default settings.
    /// - Throws: ``ImageKernelError`` with code `invalidArgument` for a malformed URL.
    public convenience init(url: String) throws(ImageKernelError) {
        self.init(configuration: try Configuration(url: url))
    }

    /// Runs one command about `key` (a Redis key); a failure of the connection becomes the error to throw.
    func run(_ command: RedisCommand, key: Data) async throws(ImageKernelError) -> RedisReply {
        try Self.reply(await router.run(command, key: key, isRead: false), name: name)
    }

    static func reply(_ outcome: Result<RedisReply, RedisFailure>, name: String) throws(ImageKernelError) -> RedisReply {
        switch outcome {
        case .success(.error(let message)):
            throw ImageKernelError(stage: .cache, plugin: Self.pluginName, code: .ioError, message: "\(name): \(message)")
        case .success(let reply):
            return reply
        case .failure(let failure):
            throw failure.error()
        }
    }
}
