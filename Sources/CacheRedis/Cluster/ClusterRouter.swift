import Foundation
import ImageKernel
import Logging

/// Routes each command to the node of a Redis Cluster that serves its key's slot, over one
/// pipelined ``ConnectionPool`` per node, and follows the cluster when it changes.
///
/// - The slot map comes from `CLUSTER SHARDS` (`CLUSTER SLOTS` before Redis 7), asked of the known
///   nodes, then the seeds. The first operation waits for it; later refreshes run beside the
///   operations (one at a time, and one per ``refreshInterval`` at most when failures ask for them).
/// - `MOVED`: the slot is re-pointed at once, the command retried there, and the map refreshed.
///   `ASK`: `ASKING` plus the command on the named node, once; the map is kept. `TRYAGAIN`: a
///   short pause, then again. `READONLY` (a write to a demoted master): the map is refreshed
///   before the retry. A failed replica, or one that is `LOADING` or `MASTERDOWN`, hands the read
///   to its master. `CLUSTERDOWN`, `LOADING` on a master and a lost connection end the operation
///   (a miss) and refresh the map.
/// - Bounds: at most ``maxAttempts`` sends per operation and ``maxNodesAskedForTheMap`` nodes per
///   discovery; each network wait is bounded by the timeout, as on a single server. (No deadline
///   in wall time: the waits are on the caller's thread, and a task that waits for a thread of a
///   busy pool would count that wait against the cluster.)
final class ClusterRouter: CommandRouter {
    static let maxAttempts = 6
    static let maxNodesAskedForTheMap = 3
    static let refreshInterval: Duration = .milliseconds(100)

    private struct State {
        var map: SlotMap?
        var pools: [NodeAddress: ConnectionPool] = [:]
        var refresh: Task<SlotMap?, Never>?
        var lastRefresh: ContinuousClock.Instant?
        /// After a discovery that found no map at all, operations miss at once until then.
        var noMapUntil: ContinuousClock.Instant?
        var turn = 0
    }

    private let seeds: [NodeAddress]
    private let template: RedisCache.Endpoint
    private let timeout: Duration
    private let retryInterval: Duration
    private let connections: Int
    private let readsFromReplicas: Bool
    private let logger: Logger?
    private let state = Locked(State())

    init(configuration: RedisCache.Configuration) {
        seeds = configuration.clusterSeeds.map { NodeAddress(host: $0.host, port: $0.port) }
        template = configuration.clusterSeeds.first ?? configuration.endpoint
        timeout = configuration.timeout
        retryInterval = configuration.retryInterval
        connections = configuration.connections
        readsFromReplicas = configuration.readsFromReplicas
        logger = configuration.logger
    }

    func run(_ command: RedisCommand, key: Data, isRead: Bool) async -> Result<RedisReply, RedisFailure> {
        let slot = HashSlot.of(key)
        guard let map = await currentMap() else {
            return .failure(RedisFailure(.cannotConnect, "no node of the cluster (\(seeds.map(\.description).joined(separator: ","))) gave a slot map"))
        }
        guard let shard = map.shard(for: slot) else {
            scheduleRefresh()
            return .failure(RedisFailure(.connectionLost, "no node of the cluster serves slot \(slot)"))
        }
        var master = shard.master
        var target = master
        var fromReplica = false
        if isRead, readsFromReplicas, !shard.replicas.isEmpty {
            target = shard.replicas[nextTurn() % shard.replicas.count]
            fromReplica = true
        }
        var asking = false
        for _ in 0..<Self.maxAttempts {
            let outcome = await pool(for: target).run(command, asking: asking)
            asking = false
            switch outcome {
            case .success(.error(let message)):
                guard let condition = ClusterError(message) else { return outcome }
                switch condition {
                case .moved(let movedSlot, let address):
                    state.withLock { $0.map?.move(slot: movedSlot, to: address) }
                    scheduleRefresh()
                    master = address
                    target = address
                case .ask(_, let address):
                    target = address
                    asking = true
                case .tryAgain:
                    try? await Task.sleep(for: min(max(timeout / 10, .milliseconds(1)), .milliseconds(10)))
                case .readOnly:
                    guard let fresh = await refresh()?.shard(for: slot)?.master, fresh != target else { return outcome }
                    master = fresh
                    target = fresh
                case .loading, .masterDown, .clusterDown:
                    scheduleRefresh()
                    guard fromReplica, condition != .clusterDown else { return outcome }
                    target = master
                }
            case .failure:
                scheduleRefresh()
                guard fromReplica else { return outcome }
                target = master
            case .success:
                return outcome
            }
            if target == master { fromReplica = false }
            guard !Task.isCancelled else { return .failure(RedisFailure(.cancelled, "cancelled while the cluster redirected slot \(slot)")) }
        }
        return .failure(RedisFailure(.redirect, "more than \(Self.maxAttempts - 1) redirections for slot \(slot)"))
    }

    func scanTargets() async -> [ConnectionPool] {
        guard let map = await currentMap() else { return [] }
        return Set(map.shards.map(\.master)).map(pool(for:))
    }

    /// The map, waiting for the first discovery (or nil at once while a failed one holds).
    private func currentMap() async -> SlotMap? {
        let (map, blocked) = state.withLock { ($0.map, $0.noMapUntil.map { ContinuousClock.now < $0 } ?? false) }
        if let map { return map }
        if blocked { return nil }
        return await refresh()
    }

    /// Waits for a discovery (the one running, or a new one) and returns the map it found.
    private func refresh() async -> SlotMap? {
        await startRefresh(unlessRecent: false).value
    }

    /// Starts a discovery in the background unless one runs or waits to run; one that follows
    /// another by less than ``refreshInterval`` waits out the rest of it first.
    private func scheduleRefresh() {
        _ = startRefresh(unlessRecent: true)
    }

    private func startRefresh(unlessRecent: Bool) -> Task<SlotMap?, Never> {
        state.withLock { state in
            if let running = state.refresh { return running }
            var delay = Duration.zero
            if unlessRecent, let last = state.lastRefresh { delay = max(.zero, Self.refreshInterval - (ContinuousClock.now - last)) }
            let task = Task {
                if delay > .zero { try? await Task.sleep(for: delay) }
                return await self.discover()
            }
            state.refresh = task
            return task
        }
    }

    /// Asks the known nodes, then the seeds, for the slot map until one answers (at most
    /// ``maxNodesAskedForTheMap`` of them), and installs what it finds.
    private func discover() async -> SlotMap? {
        let (known, start) = state.withLock { ($0.map?.nodes ?? [], nextTurn(&$0)) }
        var candidates: [NodeAddress] = []
        for address in known + seeds where !candidates.contains(address) { candidates.append(address) }
        if !known.isEmpty, !candidates.isEmpty {  // not always the same node first: it may be the dead one
            let shift = start % candidates.count
            candidates = Array(candidates[shift...] + candidates[..<shift])
        }
        var found: SlotMap?
        for address in candidates.prefix(Self.maxNodesAskedForTheMap) {
            found = await slotMap(from: address)
            if found != nil { break }
        }
        let map = found
        let changed = state.withLock { state -> Bool in
            defer {
                state.refresh = nil
                state.lastRefresh = ContinuousClock.now
            }
            guard let map else {
                if state.map == nil { state.noMapUntil = ContinuousClock.now + retryInterval }
                return false
            }
            let changed = state.map != map
            state.map = map
            state.noMapUntil = nil
            let keep = Set(map.nodes + seeds)
            state.pools = state.pools.filter { keep.contains($0.key) }
            return changed
        }
        if changed, let map {
            logger?.info("cluster slot map", metadata: ["masters": "\(map.shards.map(\.master.description).sorted())"])
        }
        return map
    }

    private func slotMap(from address: NodeAddress) async -> SlotMap? {
        let pool = pool(for: address)
        switch await pool.run(RedisCommand("CLUSTER", Data("SHARDS".utf8))) {
        case .success(.error):
            guard case .success(let reply) = await pool.run(RedisCommand("CLUSTER", Data("SLOTS".utf8))) else { return nil }
            return SlotMap(slotsReply: reply, asked: address)
        case .success(let reply):
            return SlotMap(shardsReply: reply, asked: address)
        case .failure:
            return nil
        }
    }

    private func pool(for address: NodeAddress) -> ConnectionPool {
        state.withLock { state in
            if let pool = state.pools[address] { return pool }
            var endpoint = template
            endpoint.host = address.host
            endpoint.port = address.port
            endpoint.database = 0
            let pool = ConnectionPool(
                endpoint: endpoint, connections: connections, timeout: timeout, retryInterval: retryInterval,
                readOnly: readsFromReplicas, logger: logger)
            state.pools[address] = pool
            return pool
        }
    }

    private func nextTurn() -> Int { state.withLock { nextTurn(&$0) } }

    private func nextTurn(_ state: inout State) -> Int {
        state.turn &+= 1
        return state.turn & Int.max
    }
}
