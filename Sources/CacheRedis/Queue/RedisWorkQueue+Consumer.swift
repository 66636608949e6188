import Foundation
import ImageKernel

extension RedisWorkQueue {
    /// An entry handed to a worker.
    public struct Entry: Sendable, Hashable {
        /// The stream entry's id.
        public var id: String
        /// The partition (stream) it came from.
        public var partition: Int
        /// The URL as it was pushed.
        public var url: String
        /// How many times it was delivered, this delivery included.
        public var deliveries: Int
    }

    /// What a worker did with an entry it completes.
    public enum Completion: String, Sendable {
        /// Loaded and stored.
        case loaded
        /// Found already stored: acknowledged without a load.
        case alreadyStored = "already_stored"
    }

    /// One worker's view of the queue: its consumer name in the group, its place in the
    /// partitions and the cursors of its claims. Safe to use from many tasks of one worker.
    public final class Consumer: Sendable {
        /// The consumer's name in the group.
        public let name: String
        let queue: RedisWorkQueue
        /// Blocking reads wait on connections of their own, so they never hold up the pipeline
        /// other commands share.
        private let blockingRouter: any CommandRouter
        private struct State {
            var turn = 0
            var claimCursors: [Int: String] = [:]
            var nextClaim: ContinuousClock.Instant?
            var groupsReady = false
        }
        private let state = Locked(State())

        init(queue: RedisWorkQueue, name: String) {
            self.queue = queue
            self.name = name
            var blocking = queue.configuration.redis
            blocking.connections = 1
            blockingRouter = RedisCache.makeRouter(blocking)
        }

        /// Up to `count` entries: first those idle past ``Configuration/claimIdle`` with any
        /// worker (checked every half of it), then new ones; when there are none, waits up to
        /// `block` (at most 1 s) for one. Entries past ``Configuration/maxDeliveries`` go to the
        /// dead-letter stream instead of being returned. Empty before the first push.
        public func take(count: Int, block: Duration = .milliseconds(500)) async throws(ImageKernelError) -> [Entry] {
            guard count > 0, let partitions = try await queue.partitions() else { return [] }
            try await ensureGroups(partitions)
            var taken = try await claimIdle(partitions, count: count)
            let start = state.withLock { state in
                state.turn = (state.turn + 1) % partitions
                return state.turn
            }
            for step in 0..<partitions where taken.count < count {
                let index = (start + step) % partitions
                taken += try await read(partition: index, count: count - taken.count, block: nil)
            }
            if taken.isEmpty, block > .zero {
                taken = try await read(partition: start, count: count, block: min(block, .seconds(1)))
            }
            return taken
        }

        /// Acknowledges an entry whose result is stored, counting it in the same step. False when
        /// it had been acknowledged before (another worker took it over and finished first).
        public func complete(_ entry: Entry, as completion: Completion) async throws(ImageKernelError) -> Bool {
            let p = queue.keys.partition(entry.partition)
            return try await queue.eval(QueueScripts.complete, keys: [p.stream, p.stats, p.errors],
                                        arguments: [queue.configuration.group, entry.id, completion.rawValue]).integer == 1
        }

        /// Records a failed delivery. At its last delivery the entry moves to the dead-letter
        /// stream with `error` (true is returned); before, it stays pending and is claimed again
        /// after ``Configuration/claimIdle``.
        @discardableResult
        public func fail(_ entry: Entry, error: String) async throws(ImageKernelError) -> Bool {
            let p = queue.keys.partition(entry.partition)
            let error = error.isEmpty ? "failed" : error
            return try await queue.eval(QueueScripts.fail, keys: [p.stream, p.stats, p.errors, p.dead], arguments: [
                queue.configuration.group, entry.id, entry.url, error, String(entry.deliveries), String(queue.configuration.maxDeliveries),
            ]).integer == 1
        }

        // MARK: Reading

        private func ensureGroups(_ partitions: Int) async throws(ImageKernelError) {
            guard !state.value.groupsReady else { return }
            for index in 0..<partitions { try await createGroup(index) }
            state.withLock { $0.groupsReady = true }
        }

        private func createGroup(_ index: Int) async throws(ImageKernelError) {
            let stream = queue.keys.partition(index).stream
            let reply = await queue.router.run(RedisCommand("XGROUP", arguments: [
                Data("CREATE".utf8), stream, Data(queue.configuration.group.utf8), Data("0".utf8), Data("MKSTREAM".utf8),
            ]), key: stream, isRead: false)
            if case .failure(let failure) = reply { throw failure.error() }
        }

        private func read(partition index: Int, count: Int, block: Duration?) async throws(ImageKernelError) -> [Entry] {
            let stream = queue.keys.partition(index).stream
            var arguments = [Data("GROUP".utf8), Data(queue.configuration.group.utf8), Data(name.utf8), Data("COUNT".utf8), Data(String(count).utf8)]
            if let block { arguments += [Data("BLOCK".utf8), Data(String(max(1, block.milliseconds)).utf8)] }
            arguments += [Data("STREAMS".utf8), stream, Data(">".utf8)]
            let router = block == nil ? queue.router : blockingRouter
            let reply: RedisReply
            do {
                reply = try await queue.run(RedisCommand("XREADGROUP", arguments: arguments), key: stream, router: router)
            } catch where error.message.contains("NOGROUP") {
                // The server lost the group (restarted without persistence): make it again.
                try await createGroup(index)
                return []
            }
            guard case .array(let streams) = reply, case .array(let pair)? = streams.first, pair.count == 2 else { return [] }
            return StreamEntry.list(pair[1]).map { Entry(id: $0.id, partition: index, url: $0.fields["url"] ?? "", deliveries: 1) }
        }

        /// `XAUTOCLAIM` over every partition, at most once per half of the claim idle time.
        private func claimIdle(_ partitions: Int, count: Int) async throws(ImageKernelError) -> [Entry] {
            let idle = queue.configuration.claimIdle
            let now = ContinuousClock.now
            let due = state.withLock { state -> Bool in
                if let next = state.nextClaim, now < next { return false }
                state.nextClaim = now + idle / 2
                return true
            }
            guard due else { return [] }
            var claimed: [Entry] = []
            for index in 0..<partitions where claimed.count < count {
                let p = queue.keys.partition(index)
                let cursor = state.withLock { $0.claimCursors[index] ?? "0-0" }
                let reply = try await queue.run(RedisCommand("XAUTOCLAIM", arguments: [
                    p.stream, Data(queue.configuration.group.utf8), Data(name.utf8), Data(String(max(1, idle.milliseconds)).utf8),
                    Data(cursor.utf8), Data("COUNT".utf8), Data(String(count - claimed.count).utf8),
                ]), key: p.stream)
                guard case .array(let parts) = reply, parts.count >= 2 else { continue }
                state.withLock { $0.claimCursors[index] = parts[0].text ?? "0-0" }
                for found in StreamEntry.list(parts[1]) {
                    let entry = Entry(id: found.id, partition: index, url: found.fields["url"] ?? "", deliveries: try await deliveries(of: found.id, in: p))
                    if entry.deliveries > queue.configuration.maxDeliveries || entry.url.isEmpty {
                        // Delivered too often without an outcome (its workers kept stopping): dead, with the last error recorded.
                        try await fail(Entry(id: entry.id, partition: index, url: entry.url, deliveries: max(entry.deliveries, queue.configuration.maxDeliveries)), error: "")
                    } else {
                        claimed.append(entry)
                    }
                }
            }
            // A partial pass resumes where it stopped; a full one starts over next time.
            if claimed.count >= count { state.withLock { $0.nextClaim = now } }
            return claimed
        }

        private func deliveries(of id: String, in p: QueueKeys.Partition) async throws(ImageKernelError) -> Int {
            let reply = try await queue.run(RedisCommand("XPENDING", arguments: [
                p.stream, Data(queue.configuration.group.utf8), Data(id.utf8), Data(id.utf8), Data("1".utf8),
            ]), key: p.stream)
            guard case .array(let rows) = reply, case .array(let row)? = rows.first, row.count >= 4 else { return 1 }
            return row[3].integer ?? 1
        }
    }
}

extension Duration {
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
