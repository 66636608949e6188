import Foundation
import ImageKernel
import Logging

extension RedisCache {
    /// Where the shared tier lives and how it stores.
    public struct Configuration: Sendable {
        /// The server (ignored when ``clusterSeeds`` is not empty).
        public var endpoint: Endpoint
        /// Seed nodes of a Redis Cluster; empty (the default) for one server at ``endpoint``.
        /// Any reachable seed gives the slot map (`CLUSTER SHARDS`); user and password of the
        /// first seed log in to every node. The Cache tiers article of the ImageKernel documentation
        /// says what a cluster changes.
        public var clusterSeeds: [Endpoint]
        /// In a cluster, send queries (`GET`, `EXISTS`) to a replica of the key's master, in turn
        /// (their connections send `READONLY`); a replica that fails or is `LOADING` hands the read
        /// to the master. A replica may lag its master by a few writes: a just-stored entry may
        /// miss once. Default false: every command goes to the master.
        public var readsFromReplicas: Bool
        /// Prepended to every Redis key (the hex SHA-256 of the cache key follows), so several
        /// caches or applications share one server without seeing each other's entries;
        /// ``RedisCache/clear(type:)`` removes only keys under it. Default `imagekernel:`.
        public var keyPrefix: String
        /// How long Redis keeps an entry after it was stored; nil (the default) keeps it until
        /// Redis evicts it (`maxmemory-policy allkeys-lru`).
        public var timeToLive: Duration?
        /// Entries whose stored value (bytes and validators) is larger are not stored: the store
        /// throws `tooLarge` and the old entry stays. Default 8 MiB.
        public var maxValueSize: Int
        /// How long one network wait (connect, write, read) may take before the operation counts
        /// as failed: a query misses, a store throws. Default 50 ms.
        public var timeout: Duration
        /// Connections in the pool (default 4). Requests share one connection's pipeline and
        /// spill onto the next only while every busy one has 16 commands in flight, because each
        /// connection in use keeps a thread of the caller's pool waiting for replies.
        public var connections: Int
        /// After a failed connect or a timeout, how long a connection answers at once with that
        /// failure before it tries the server again (default 500 ms; zero tries every time).
        public var retryInterval: Duration
        /// Encodes entries that hold an image but no bytes (PNG or JPEG through a
        /// ``CoderRegistry``, for example). Nil (the default): such a store throws `unsupported`.
        public var imageEncoder: (@Sendable (Image) throws(ImageKernelError) -> Data)?
        /// Where connection failures are logged (warning level); nil logs nothing.
        public var logger: Logger?

        public init(
            endpoint: Endpoint = Endpoint(), clusterSeeds: [Endpoint] = [], readsFromReplicas: Bool = false, keyPrefix: String = "imagekernel:", timeToLive: Duration? = nil,
            maxValueSize: Int = 8 << 20, timeout: Duration = .milliseconds(50), connections: Int = 4,
            retryInterval: Duration = .milliseconds(500), imageEncoder: (@Sendable (Image) throws(ImageKernelError) -> Data)? = nil,
            logger: Logger? = nil
        ) {
            self.endpoint = endpoint
            self.clusterSeeds = clusterSeeds
            self.readsFromReplicas = readsFromReplicas
            self.keyPrefix = keyPrefix
            self.timeToLive = timeToLive
            self.maxValueSize = maxValueSize
            self.timeout = timeout
            self.connections = connections
            self.retryInterval = retryInterval
            self.imageEncoder = imageEncoder
            self.logger = logger
        }

        /// A configuration for the server named by `redis://[[user]:password@]host[:port][/db]`, or
        /// for the cluster whose seed nodes `redis+cluster://[[user]:password@]host:port,host:port…`
        /// names (database 0 only, as in any cluster).
        /// - Throws: ``ImageKernelError`` with code `invalidArgument` for a malformed URL.
        public init(url: String) throws(ImageKernelError) {
            if let seeds = try Endpoint.clusterSeeds(url: url) {
                self.init(endpoint: seeds[0], clusterSeeds: seeds)
            } else {
                self.init(endpoint: try Endpoint(url: url))
            }
        }

        /// Whether this configuration names a Redis Cluster.
        public var isCluster: Bool { !clusterSeeds.isEmpty }
    }
}
