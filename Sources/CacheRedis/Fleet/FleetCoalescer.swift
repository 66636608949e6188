import Foundation
import ImageKernel

/// One piece of work per key across a fleet of processes that share a Redis server or cluster.
///
/// Each process asks ``value(for:lookup:produce:publish:)`` for a key. The first to find no
/// value takes the key's lease (``RedisLease``: `SET NX PX`), produces the value, publishes it
/// where the others look (a shared cache tier), and gives the lease up; while it works it renews
/// the lease every ``Configuration/renewInterval``. The others wait: every
/// ``Configuration/pollInterval`` they look for the value, and try the lease again, so when its
/// holder dies (the lease lapses after ``RedisLease/Configuration/leaseTime``) one of them takes
/// over. A value that lands is taken by all of them.
///
/// ## Guarantees
/// - **Bounded waits.** No caller waits for another process longer than ``Configuration/maxWait``
///   (25 s by default); past it, it produces the value itself.
/// - **Fail open.** When Redis cannot answer in time (down, unreachable, a cluster without a
///   master for the slot), the caller produces the value itself at once: the fleet then works as
///   independent processes, never fails for it.
/// - **Published before released.** The holder publishes the value before it releases the lease
///   (in the background, after `value(for:…)` has returned it), and a process that takes a lease
///   looks for the value once more before producing; so a value that landed is not produced again.
///
/// ## Requirements on callers
/// - Join concurrent callers for one key inside the process first (as `ImageManager` and
///   image-proxy's render coalescing do): this type coordinates processes, and two callers of one
///   process that ask together would each wait for the other's lease.
/// - `lookup` must be cheap and bounded (a `RedisCache` query is); it runs every poll.
/// - `publish` must make the value visible to `lookup` in every process (store it in the shared
///   tier) and may fail silently: waiters then take the lease and produce it themselves.
///
/// A failed `produce` releases the lease without publishing; waiters then take the lease in turn.
public final class FleetCoalescer: Sendable {
    /// Timing of the waits.
    public struct Configuration: Sendable {
        /// The leases: names and how long one lasts unless renewed (default 5 s).
        public var lease: RedisLease.Configuration
        /// How often a holder renews its lease (default 1.5 s; keep it well under the lease time).
        /// Renewals run as a task on the concurrency pool: where synchronous work can hold every
        /// pool thread for a while (renders, decodes), keep the lease time well above that
        /// while, or a renewal comes late, the lease lapses and a second producer starts (a
        /// duplicate of the work, never a wrong value).
        public var renewInterval: Duration
        /// How often a waiter looks for the value and tries the lease (default 100 ms).
        public var pollInterval: Duration
        /// The longest a caller waits for another process before it produces the value itself
        /// (default 25 s).
        public var maxWait: Duration

        public init(
            lease: RedisLease.Configuration = .init(), renewInterval: Duration = .milliseconds(1500), pollInterval: Duration = .milliseconds(100),
            maxWait: Duration = .seconds(25)
        ) {
            self.lease = lease
            self.renewInterval = renewInterval
            self.pollInterval = pollInterval
            self.maxWait = maxWait
        }
    }

    /// Where a value came from.
    public enum Source: Sendable, Hashable {
        /// `lookup` found it (another process produced it, now or before).
        case found
        /// This process produced it, holding the lease.
        case produced
        /// This process produced it without the lease: Redis could not answer, or the wait passed
        /// ``Configuration/maxWait``.
        case producedAlone
    }

    /// The leases it takes.
    public let leases: RedisLease
    /// Its timing.
    public let configuration: Configuration
    private let held = Locked(0)
    private let publishing = Locked(0)

    /// A coalescer whose leases live on the server or cluster of `cache`.
    /// - Parameter owner: the token written into its leases (default `host:pid:random`).
    public init(cache: RedisCache, configuration: Configuration = Configuration(), owner: String? = nil) {
        self.configuration = configuration
        leases = RedisLease(cache: cache, configuration: configuration.lease, owner: owner)
    }

    /// Leases this process holds right now.
    public var leasesHeld: Int { held.withLock { $0 } }

    /// The value for `key`: found by `lookup`, or produced here (once in the fleet while Redis
    /// answers), or produced by another process while this one waited.
    /// - Parameters:
    ///   - lookup: the value where the fleet keeps it, or nil.
    ///   - produce: makes the value; its error is rethrown (and nothing is published).
    ///   - publish: keeps a produced value where `lookup` finds it; runs after this method
    ///     returned, before the lease is released.
    public func value<Value: Sendable, Failure: Error>(
        for key: String, lookup: () async -> Value?, produce: () async throws(Failure) -> Value,
        publish: @escaping @Sendable (Value) async -> Void
    ) async throws(Failure) -> (value: Value, source: Source) {
        if let found = await lookup() { return (found, .found) }
        let clock = ContinuousClock()
        let deadline = clock.now + configuration.maxWait
        while true {
            switch await leases.acquire(key) {
            case .acquired(let lease):
                if let found = await lookup() {
                    await leases.release(lease)
                    return (found, .found)
                }
                return (try await produceHolding(lease, produce: produce, publish: publish), .produced)
            case .unavailable:
                return (try await produceAlone(produce: produce, publish: publish), .producedAlone)
            case .heldElsewhere:
                guard clock.now < deadline, !Task.isCancelled else { return (try await produceAlone(produce: produce, publish: publish), .producedAlone) }
                try? await Task.sleep(for: configuration.pollInterval)
                if let found = await lookup() { return (found, .found) }
            }
        }
    }

    /// Lets values being published land (at most `limit`): for a clean exit.
    public func waitUntilPublished(within limit: Duration = .seconds(5)) async {
        let deadline = ContinuousClock.now + limit
        while publishing.withLock({ $0 }) > 0 && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
    }

    private func produceHolding<Value: Sendable, Failure: Error>(
        _ lease: RedisLease.Held, produce: () async throws(Failure) -> Value, publish: @escaping @Sendable (Value) async -> Void
    ) async throws(Failure) -> Value {
        held.withLock { $0 += 1 }
        let leases = self.leases
        let interval = configuration.renewInterval
        let renewal = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { return }
                // Only a lease taken by another stops the renewals: a server that did not answer
                // in time is asked again at the next interval, while the lease may still hold.
                guard await leases.renew(lease) != false else { return }
            }
        }
        let finish: @Sendable (Value?) async -> Void = { [self] value in
            if let value { await publish(value) }
            renewal.cancel()
            await leases.release(lease)
            held.withLock { $0 -= 1 }
            publishing.withLock { $0 -= 1 }
        }
        publishing.withLock { $0 += 1 }
        let value: Value
        do {
            value = try await produce()
        } catch {
            Task { await finish(nil) }
            throw error
        }
        Task { await finish(value) }
        return value
    }

    private func produceAlone<Value: Sendable, Failure: Error>(
        produce: () async throws(Failure) -> Value, publish: @escaping @Sendable (Value) async -> Void
    ) async throws(Failure) -> Value {
        let value = try await produce()
        publishing.withLock { $0 += 1 }
        Task { [self] in
            await publish(value)
            publishing.withLock { $0 -= 1 }
        }
        return value
    }
}
