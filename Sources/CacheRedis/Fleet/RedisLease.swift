import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ImageKernel

/// Leases on Redis (or Redis Cluster): at most one holder of a name at a time, across every
/// process that shares the server, for a bounded time unless renewed.
///
/// A lease is one Redis key, `keyPrefix` + the hex SHA-256 of its name, holding its owner's
/// token: taken with `SET key token NX PX ttl`, renewed and released with a short script that
/// acts only while the key still holds the token (so a holder whose lease lapsed cannot renew or
/// delete a lease another process took since). A holder that dies (SIGKILL, a lost machine)
/// stops renewing, and the lease lapses after at most ``Configuration/leaseTime``.
///
/// Every operation is bounded by the ``RedisCache``'s timeout: a server or cluster that cannot
/// answer in time says ``Acquisition/unavailable``, never hangs. ``FleetCoalescer`` builds on it.
public struct RedisLease: Sendable {
    /// How leases are named and how long they last.
    public struct Configuration: Sendable {
        /// Prepended to the hex SHA-256 of each lease's name. Default `imagekernel:lease:`.
        public var keyPrefix: String
        /// How long a lease lasts unless renewed: how long others wait after its holder died.
        /// Default 5 s.
        public var leaseTime: Duration

        public init(keyPrefix: String = "imagekernel:lease:", leaseTime: Duration = .seconds(5)) {
            self.keyPrefix = keyPrefix
            self.leaseTime = leaseTime
        }
    }

    /// One lease held.
    public struct Held: Sendable, Hashable {
        /// The lease's name, as given to ``RedisLease/acquire(_:)``.
        public let name: String
        let redisKey: Data
    }

    /// What ``RedisLease/acquire(_:)`` found.
    public enum Acquisition: Sendable, Hashable {
        /// The lease is this owner's until it lapses or is released.
        case acquired(Held)
        /// Another owner holds it.
        case heldElsewhere
        /// The server could not answer in time (or refused the command): nobody can say who holds it.
        case unavailable
    }

    /// The token this owner writes into its leases: unique per ``RedisLease`` value.
    public let owner: String
    /// What the leases are.
    public let configuration: Configuration
    let cache: RedisCache
    let naming: KeyNaming

    /// Leases on the server or cluster of `cache` (its connections and timeout), written as `owner`.
    /// - Parameter owner: the token written into held leases; the default names this host and
    ///   process and adds a random part (`host:pid:random`), so an operator can tell who holds one.
    public init(cache: RedisCache, configuration: Configuration = Configuration(), owner: String? = nil) {
        self.cache = cache
        self.configuration = configuration
        self.owner = owner ?? Self.defaultOwner()
        naming = KeyNaming(prefix: configuration.keyPrefix)
    }

    static func defaultOwner() -> String {
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count - 1) == 0 ? String(cString: name) : "host"
        return "\(host.replacingOccurrences(of: ":", with: "-")):\(getpid()):\(UUID().uuidString.prefix(8))"
    }

    /// The Redis key of the lease `name` (for operators and tests: `GET` it to see its owner).
    public func redisKey(for name: String) -> String { String(decoding: naming.redisKey(for: name), as: UTF8.self) }

    /// Takes the lease `name` if nobody holds it (`SET NX PX`).
    public func acquire(_ name: String) async -> Acquisition {
        let key = naming.redisKey(for: name)
        let command = RedisCommand("SET", key, Data(owner.utf8), Data("NX".utf8), Data("PX".utf8), Data(String(Self.milliseconds(configuration.leaseTime)).utf8))
        switch await cache.router.run(command, key: key, isRead: false) {
        case .success(.status(let status)) where status == "OK": return .acquired(Held(name: name, redisKey: key))
        case .success(.null): return .heldElsewhere
        default: return .unavailable
        }
    }

    /// Extends a held lease to a full ``Configuration/leaseTime`` from now: true when renewed,
    /// false when it is no longer this owner's (it lapsed and was taken), nil when the server
    /// could not answer (a holder may try again before the lease lapses).
    public func renew(_ lease: Held) async -> Bool? {
        switch await runScript(Self.renewScript, lease, extra: [Data(String(Self.milliseconds(configuration.leaseTime)).utf8)]) {
        case .integer(1): true
        case .integer: false
        default: nil
        }
    }

    /// Gives a held lease up, if it is still this owner's (a lease that lapsed and was taken
    /// since stays with its new holder). Failing to reach the server leaves the lease to lapse.
    public func release(_ lease: Held) async {
        _ = await runScript(Self.releaseScript, lease, extra: [])
    }

    private func runScript(_ script: String, _ lease: Held, extra: [Data]) async -> RedisReply? {
        let arguments = [Data(script.utf8), Data("1".utf8), lease.redisKey, Data(owner.utf8)] + extra
        guard case .success(let reply) = await cache.router.run(RedisCommand("EVAL", arguments: arguments), key: lease.redisKey, isRead: false) else { return nil }
        return reply
    }

    static let renewScript = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end"
    static let releaseScript = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end"

    static func milliseconds(_ duration: Duration) -> Int64 {
        max(1, duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
