#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import ImageKernel

/// Index building, trimming and cleaning. Everything here runs on the `maintenance` queue.
extension DiskCache {
    /// Counters for tests and diagnostics.
    package struct Statistics: Sendable, Equatable {
        /// Directory scans (the first build, rebuilds of a stale index, ``clean()``).
        package var scans = 0
        /// Maintenance passes (trims and cleans).
        package var trims = 0
    }

    package var statistics: Statistics { state.withLock { $0.statistics } }

    /// Temporary files older than this are left over from a crashed store and are removed by
    /// ``clean()`` and ``removeAll()``.
    static let orphanedTemporaryAge: Double = 3600

    /// Files removed per hold of the lock, so stores and reads are never blocked for long.
    private static let batchSize = 64

    /// Rebuilds the index from the directory. Stores and reads go on meanwhile; their changes are
    /// journalled and replayed onto the scanned index. A directory with more entries than the
    /// index may hold leaves the cache unindexed (with the scanned total and oldest date).
    @discardableResult
    func rescan() -> DirectoryScanner.Summary {
        let (startState, limit) = beginScan()
        var entries: [DateOrderedIndex.Entry]? = limit > 0 ? [] : nil
        var oldest = Double.infinity
        let summary = DirectoryScanner.scan(directoryPath, expireBy: configuration.expireBy) { entry in
            oldest = min(oldest, entry.date)
            guard entries != nil else { return }
            if entries!.count >= limit { entries = nil } else { entries!.append(entry) }
        }
        state.withLock {
            $0.finishScan(entries, totalSize: summary.totalSize, oldest: oldest, startState: startState)
        }
        return summary
    }

    /// Opens a new ledger if the directory was replaced and starts a scan. Returns the ledger
    /// state the scan starts from and how many entries it may index (0: none).
    func beginScan() -> (Ledger.State?, Int) {
        state.withLock { state in
            if let ledger = state.ledger, !ledger.isCurrent {
                state.ledger = Ledger(directory: directoryPath)
                state.ledgerState = nil
            } else if state.ledger == nil {
                state.ledger = Ledger(directory: directoryPath)
            }
            return (state.beginScan(), state.isIndexed ? state.maxIndexed : 0)
        }
    }

    /// Whether a store should start a trim; marks one as scheduled. Called under the lock.
    func scheduleMaintenanceIfNeeded(_ state: inout CacheState, now: Double) -> Bool {
        guard !state.maintenanceScheduled, now - state.lastFruitlessPass >= 1, needsMaintenance(&state, now: now) else {
            return false
        }
        state.maintenanceScheduled = true
        return true
    }

    /// Over the size limit (checked against fresh shared totals), or the oldest entry expired.
    private func needsMaintenance(_ state: inout CacheState, now: Double) -> Bool {
        if configuration.maxAge >= 0, let oldest = state.oldestDate, now - oldest >= configuration.maxAge {
            return true
        }
        guard configuration.maxSize > 0, state.estimatedTotal > configuration.maxSize else { return false }
        if state.pendingBytes != 0 { state.flush() }
        return state.estimatedTotal > configuration.maxSize
    }

    /// The pass a store starts: repeated while it makes progress and is still needed, so that
    /// stores racing with it never leave the directory over its limit.
    func automaticMaintenance() {
        while true {
            let progress = maintain(full: false).indexRemovals
            let again = state.withLock { state -> Bool in
                let now = POSIX.now()
                let needed = needsMaintenance(&state, now: now)
                if needed, progress > 0 { return true }
                if needed { state.lastFruitlessPass = now }
                state.maintenanceScheduled = false
                return false
            }
            if !again { return }
        }
    }

    /// ``waitUntilIdle()``: publishes own size changes to the ledger and trims now if that (or
    /// another process's changes) shows the directory over a limit.
    func settle() {
        var needed = state.withLock { state -> Bool in
            state.flush()
            return needsMaintenance(&state, now: POSIX.now())
        }
        while needed {
            let progress = maintain(full: false).indexRemovals
            needed = progress > 0 && state.withLock { needsMaintenance(&$0, now: POSIX.now()) }
        }
    }

    /// Removes expired entries, then the oldest until the total is at most half the limit (when it
    /// is over it). `full` (``clean()``) always rescans first, removes orphaned temporary files,
    /// and may remove the newest entry; an automatic pass rescans only when the index is stale and
    /// keeps the newest entry (the one just stored).
    func maintain(full: Bool) -> (result: CleanResult, indexRemovals: Int) {
        let (mustScan, indexed) = state.withLock { state -> (Bool, Bool) in
            state.flush()
            let replaced = state.ledger.map { !$0.isCurrent } ?? false
            return (full || replaced || state.isStale || !state.isBuilt, state.isIndexed)
        }
        guard indexed else { return maintainUnindexed(full: full) }
        var result = CleanResult()
        var removals = 0
        if mustScan {
            let scan = rescan()
            // The scan found more entries than the index may hold.
            guard state.withLock({ $0.isIndexed }) else { return maintainUnindexed(full: full) }
            if full { removeOrphanedTemporaries(scan.temporaries) }
        }
        let now = POSIX.now()
        if configuration.maxAge >= 0 {
            let cutoff = now - configuration.maxAge
            removals += removeOldest(into: &result, keepNewest: false) { state, entry in entry.date <= cutoff }
        }
        let limit = configuration.maxSize
        if limit > 0, state.withLock({ $0.estimatedTotal > limit }) {
            removals += removeOldest(into: &result, keepNewest: !full) { state, _ in state.estimatedTotal > limit / 2 }
        }
        state.withLock { state in
            state.flush()
            state.statistics.trims += 1
        }
        return (result, removals)
    }

    /// Unlinks entries from the oldest while `condition` holds, in batches under the lock (so a
    /// store of the same name cannot interleave with the unlink). Returns how many entries left
    /// the index, including files another process had already removed.
    private func removeOldest(
        into result: inout CleanResult, keepNewest: Bool,
        while condition: (CacheState, DateOrderedIndex.Entry) -> Bool
    ) -> Int {
        let flushAt = ledgerBatchBytes
        var removals = 0
        var done = false
        while !done {
            state.withLock { state in
                for _ in 0..<Self.batchSize {
                    guard let victim = state.index.oldest, condition(state, victim),
                        !(keepNewest && state.index.count == 1)
                    else {
                        done = true
                        return
                    }
                    let code = POSIX.unlinkPath(directoryPath + "/" + victim.name)
                    state.remove(victim.name)
                    removals += 1
                    if code == 0 {
                        state.account(-victim.size, flushAtBytes: flushAt)
                        result.removedCount += 1
                        result.removedBytes += victim.size
                    } else if code == ENOENT {
                        state.isStale = true
                    }
                }
            }
        }
        return removals
    }

    func removeOrphanedTemporaries(_ temporaries: [(name: String, date: Double)]) {
        let cutoff = POSIX.now() - Self.orphanedTemporaryAge
        for temporary in temporaries where temporary.date < cutoff {
            _ = POSIX.unlinkPath(directoryPath + "/" + temporary.name)
        }
    }

    /// ``removeAll()``: unlinks every entry file the directory lists (one at a time, under the
    /// lock), then whatever the index still lists (stores that landed meanwhile).
    func sweepResult() -> Result<Void, ImageKernelError> {
        let flushAt = ledgerBatchBytes
        var failure: SystemCallFailure?
        func sweep(_ name: String, size: Int?, _ state: inout CacheState) {
            let path = directoryPath + "/" + name
            let size = size ?? state.index[name]?.size ?? POSIX.lstatPath(path).map { Int($0.st_size) } ?? 0
            let code = POSIX.unlinkPath(path)
            if code == 0 {
                state.account(-size, flushAtBytes: flushAt)
            } else if code != ENOENT {
                failure = failure ?? SystemCallFailure(code: code, action: "cannot remove", path: path)
                return
            }
            state.remove(name)
        }
        let summary = DirectoryScanner.scan(directoryPath, expireBy: configuration.expireBy) { entry in
            state.withLock { sweep(entry.name, size: entry.size, &$0) }
        }
        removeOrphanedTemporaries(summary.temporaries)
        state.withLock { state in
            for entry in state.index.entries { sweep(entry.name, size: entry.size, &state) }
            if !state.isIndexed { state.unindexedOldest = .infinity }
            state.flush()
        }
        return failure.map { .failure($0.kernelError) } ?? .success(())
    }
}
