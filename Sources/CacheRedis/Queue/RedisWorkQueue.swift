import Foundation
import ImageKernel

/// A work queue of URLs on Redis Streams consumer groups, shared by any number of workers on any
/// number of machines: at-least-once delivery, takeover of a stopped worker's entries, a
/// dead-letter stream, and counters that never drift from the stream.
///
/// Producers ``push(_:)`` URLs (`XADD`); each worker process takes entries through its own
/// ``Consumer`` (`XREADGROUP`, then `XAUTOCLAIM` for entries idle longer than
/// ``Configuration/claimIdle``), and reports each one ``Consumer/complete(_:as:)`` (`XACK`, only
/// once its result is stored) or ``Consumer/fail(_:error:)``. `imagekernel queue` is built on it.
///
/// ## Guarantees
/// - **At least once.** An entry leaves the queue only when a worker acknowledges it, or when it
///   failed ``Configuration/maxDeliveries`` deliveries and moved to the dead-letter stream with
///   its last error. An entry held by a worker that stopped is claimed by another after
///   ``Configuration/claimIdle`` (default 60 s: longer than any one load with its retries, so a
///   slow worker is rarely doubled; each claim counts as a delivery).
/// - **Counters in the same step.** Every change of the stream and the counters it moves
///   (``Stats/done``, ``Stats/dead``, the total pushed) runs in one Lua script on one partition,
///   so a worker killed at any point, or a server restarted from its AOF, never leaves them
///   apart. ``Stats/waiting`` is derived from these counters and the pending entries
///   (`XPENDING`), never from the group's lag, which Redis 7.0 misreports after an AOF restart.
///   An entry acknowledged twice (both workers did the work) counts once in `done` and once in
///   ``Stats/duplicates``.
/// - **Partitions.** The queue is ``Configuration/partitions`` streams, each with its counters
///   under one `{hash tag}`: on Redis Cluster they spread over the slots (and nodes). The number
///   is fixed by the first push and read back by workers.
/// - **Failures.** Every Redis operation is bounded by the configuration's timeout and throws
///   ``ImageKernelError`` (stage `.cache`, plugin `"CacheRedis"`) when the server does not answer;
///   after a restart the next operation connects again.
public final class RedisWorkQueue: Sendable {
    /// Where the queue lives and how it hands out entries.
    public struct Configuration: Sendable {
        /// The server or cluster (``RedisCache/Configuration/timeout`` bounds every wait; the
        /// queue's default is 5 s, not the cache's 50 ms: a queue operation must not give up early).
        public var redis: RedisCache.Configuration
        /// The queue's name: letters, digits, `.`, `_`, `-`.
        public var name: String
        /// Streams the queue is split into; nil: 1 on one server, 8 on a cluster. Only the first
        /// push sets it; later pushes and workers use the stored number.
        public var partitions: Int?
        /// An entry pending this long with its worker is claimed by another (default 60 s).
        public var claimIdle: Duration = .seconds(60)
        /// Deliveries before a failing entry moves to the dead-letter stream (default 3).
        public var maxDeliveries: Int = 3
        /// The consumer group's name.
        public var group: String = "imagekernel"

        /// A queue named `name` on the server or cluster a Redis URL names (as `--shared-cache` takes it).
        /// - Throws: ``ImageKernelError`` (`invalidArgument`) for a malformed URL or name.
        public init(name: String, url: String) throws(ImageKernelError) {
            guard QueueKeys.isValid(name) else {
                throw ImageKernelError(stage: .request, plugin: RedisCache.pluginName, code: .invalidArgument,
                                       message: "queue name \(name.debugDescription): use 1 to 100 letters, digits, '.', '_' or '-'")
            }
            self.name = name
            redis = try RedisCache.Configuration(url: url)
            redis.timeout = .seconds(5)
            redis.connections = 2
        }
    }

    /// The queue's counters, summed over its partitions.
    public struct Stats: Sendable, Equatable {
        /// Entries pushed and not yet taken by any worker.
        public var waiting: Int
        /// Entries a worker holds (delivered, not acknowledged), including a stopped worker's.
        public var inFlight: Int
        /// Entries acknowledged: loaded and stored, or found already stored.
        public var done: Int
        /// Entries in the dead-letter stream.
        public var dead: Int
        /// Of ``done``: entries loaded and stored by a worker.
        public var loaded: Int
        /// Of ``done``: entries found already in the shared tier and acknowledged without a load.
        public var alreadyStored: Int
        /// Entries acknowledged a second time: two workers did the same work.
        public var duplicates: Int
        /// Deliveries that failed (each failing entry counts once per delivery).
        public var failedDeliveries: Int
        /// Entries pushed in all.
        public var total: Int
        /// The number of partitions.
        public var partitions: Int
    }

    /// An entry of the dead-letter stream.
    public struct DeadEntry: Sendable, Equatable {
        /// Its id in the dead-letter stream (``requeue(_:)`` takes it).
        public var id: String
        /// The partition it belongs to.
        public var partition: Int
        /// The URL as it was pushed.
        public var url: String
        /// The error of its last delivery.
        public var error: String
        /// How many times it was delivered before it died.
        public var deliveries: Int
    }

    /// What the queue was created with.
    public let configuration: Configuration
    let router: any CommandRouter
    let keys: QueueKeys
    private let partitionCount = Locked<Int?>(nil)

    /// A queue; nothing connects until the first operation.
    public init(configuration: Configuration) {
        self.configuration = configuration
        router = RedisCache.makeRouter(configuration.redis)
        keys = QueueKeys(name: configuration.name)
    }

    /// Adds URLs (streamed: `batchSize` at a time per partition, round robin over the partitions,
    /// so a list of millions is never held). Returns how many were added.
    public func push<S: Sequence>(_ urls: S, batchSize: Int = 500) async throws(ImageKernelError) -> Int where S.Element == String {
        let count = try await fixPartitions()
        var batches = [[String]](repeating: [], count: count)
        var next = 0, added = 0
        for url in urls {
            batches[next].append(url)
            if batches[next].count >= batchSize {
                added += try await pushBatch(batches[next], partition: next)
                batches[next].removeAll(keepingCapacity: true)
            }
            next = (next + 1) % count
        }
        for (partition, batch) in batches.enumerated() where !batch.isEmpty {
            added += try await pushBatch(batch, partition: partition)
        }
        return added
    }

    private func pushBatch(_ urls: [String], partition: Int) async throws(ImageKernelError) -> Int {
        let p = keys.partition(partition)
        let reply = try await eval(QueueScripts.push, keys: [p.stream, p.stats], arguments: [configuration.group] + urls)
        return reply.integer ?? 0
    }

    /// The counters, summed over the partitions (all zero before the first push).
    public func stats() async throws(ImageKernelError) -> Stats {
        var stats = Stats(waiting: 0, inFlight: 0, done: 0, dead: 0, loaded: 0, alreadyStored: 0, duplicates: 0, failedDeliveries: 0, total: 0, partitions: 0)
        guard let count = try await partitions() else { return stats }
        stats.partitions = count
        for index in 0..<count {
            let p = keys.partition(index)
            let fields = try await run(RedisCommand("HGETALL", p.stats), key: p.stats).fieldMap
            let value = { (name: String) in Int(fields[name] ?? "") ?? 0 }
            let pendingReply = await router.run(RedisCommand("XPENDING", p.stream, Data(configuration.group.utf8)), key: p.stream, isRead: false)
            var pending = 0
            if case .success(.array(let summary)) = pendingReply { pending = summary.first?.integer ?? 0 }
            else if case .failure(let failure) = pendingReply { throw failure.error() }
            stats.total += value("total")
            stats.done += value("done")
            stats.dead += value("dead")
            stats.loaded += value("loaded")
            stats.alreadyStored += value("already_stored")
            stats.duplicates += value("duplicates")
            stats.failedDeliveries += value("failed_deliveries")
            stats.inFlight += pending
        }
        stats.waiting = max(0, stats.total - stats.done - stats.dead - stats.inFlight)
        return stats
    }

    /// Calls `body` with the dead entries, a batch at a time (oldest first).
    public func forEachDead(_ body: ([DeadEntry]) async throws(ImageKernelError) -> Void) async throws(ImageKernelError) {
        guard let count = try await partitions() else { return }
        for index in 0..<count {
            let dead = keys.partition(index).dead
            var start = "-"
            while true {
                let reply = try await run(RedisCommand("XRANGE", dead, Data(start.utf8), Data("+".utf8), Data("COUNT".utf8), Data("500".utf8)), key: dead)
                let entries = StreamEntry.list(reply)
                if entries.isEmpty { break }
                try await body(entries.map {
                    DeadEntry(id: $0.id, partition: index, url: $0.fields["url"] ?? "", error: $0.fields["error"] ?? "",
                              deliveries: Int($0.fields["deliveries"] ?? "") ?? 0)
                })
                guard entries.count == 500, let last = entries.last else { break }
                start = "(" + last.id
            }
        }
    }

    /// Moves a dead entry back to the queue. False when it was no longer in the dead-letter stream.
    @discardableResult
    public func requeue(_ entry: DeadEntry) async throws(ImageKernelError) -> Bool {
        let p = keys.partition(entry.partition)
        return try await eval(QueueScripts.requeue, keys: [p.stream, p.stats, p.dead], arguments: [entry.id, entry.url]).integer == 1
    }

    /// The worker `name` of this queue (each worker process needs a name of its own).
    public func consumer(named name: String) -> Consumer { Consumer(queue: self, name: name) }

    // MARK: Partitions and commands

    /// The stored number of partitions; nil before the first push.
    func partitions() async throws(ImageKernelError) -> Int? {
        if let known = partitionCount.value { return known }
        let reply = try await run(RedisCommand("HGET", keys.meta, Data("partitions".utf8)), key: keys.meta)
        guard let count = reply.text.flatMap({ Int($0) }), count > 0 else { return nil }
        partitionCount.withLock { $0 = count }
        return count
    }

    private func fixPartitions() async throws(ImageKernelError) -> Int {
        let wanted = max(1, configuration.partitions ?? (configuration.redis.isCluster ? 8 : 1))
        _ = try await run(RedisCommand("HSETNX", keys.meta, Data("partitions".utf8), Data(String(wanted).utf8)), key: keys.meta)
        return try await partitions() ?? wanted
    }

    func run(_ command: RedisCommand, key: Data, router: (any CommandRouter)? = nil) async throws(ImageKernelError) -> RedisReply {
        try RedisCache.reply(await (router ?? self.router).run(command, key: key, isRead: false), name: "queue \(configuration.name)")
    }

    func eval(_ script: String, keys: [Data], arguments: [String]) async throws(ImageKernelError) -> RedisReply {
        let command = RedisCommand("EVAL", arguments: [Data(script.utf8), Data(String(keys.count).utf8)] + keys + arguments.map { Data($0.utf8) })
        return try await run(command, key: keys[0])
    }
}
