import Foundation
import ImageKernel

/// Trimming and cleaning without an index (a directory with more entries than
/// ``DiskCache/Configuration/maxIndexedEntries``), in memory that does not grow with the
/// directory: each pass streams the directory once, removes expired entries as it meets them and
/// keeps only the oldest 16,384 others (``Configuration/trimCandidateLimit``) as candidates for
/// the size trim.
/// Everything here runs on the `maintenance` queue.
extension DiskCache {
    /// ``maintain(full:)`` without an index: passes until the directory is within its limits or a
    /// pass removes nothing. `full` removes orphaned temporary files and may remove the newest entry.
    func maintainUnindexed(full: Bool) -> (result: CleanResult, indexRemovals: Int) {
        var result = CleanResult()
        var removals = 0
        var continuing = false
        while true {
            let pass = unindexedPass(full: full, continuing: continuing, into: &result)
            removals += pass.removed
            continuing = true
            guard pass.moreCandidates, pass.removed > 0 else { break }
        }
        state.withLock { state in
            state.flush()
            state.statistics.trims += 1
        }
        return (result, removals)
    }

    /// One streaming pass. A size trim starts over the limit and, once started (`continuing`),
    /// goes on to half of it. Returns how many entries the pass removed, and whether the
    /// directory is still over half its limit with entries the pass had no room to consider.
    private func unindexedPass(
        full: Bool, continuing: Bool, into result: inout CleanResult
    ) -> (removed: Int, moreCandidates: Bool) {
        let cutoff = configuration.maxAge >= 0 ? POSIX.now() - configuration.maxAge : -Double.infinity
        var candidates = OldestEntries(capacity: configuration.trimCandidateLimit)
        var removed = 0
        var kept = (count: 0, size: 0, oldest: Double.infinity)
        let (startState, _) = beginScan()
        let summary = DirectoryScanner.scan(directoryPath, expireBy: configuration.expireBy) { entry in
            if entry.date <= cutoff, removeIfUnchanged(entry, into: &result) {
                removed += 1
                return
            }
            candidates.insert(entry)
            kept.count += 1
            kept.size += entry.size
            kept.oldest = min(kept.oldest, entry.date)
        }
        state.withLock {
            $0.finishScan(nil, totalSize: kept.size, oldest: kept.oldest, startState: startState)
        }
        if full { removeOrphanedTemporaries(summary.temporaries) }

        let limit = configuration.maxSize
        let threshold = continuing ? limit / 2 : limit
        guard limit > 0, state.withLock({ $0.estimatedTotal > threshold }) else { return (removed, false) }
        var remaining = kept.count
        var oldestLeft: Double?
        var lastRemoved = -Double.infinity
        for victim in candidates.oldestFirst() {
            // An automatic pass keeps the newest entry (the one just stored).
            let stop = (!full && remaining <= 1) || state.withLock { state -> Bool in
                guard state.estimatedTotal > limit / 2 else { return true }
                if unlinkIfUnchanged(victim, &state, into: &result) {
                    removed += 1
                    remaining -= 1
                    lastRemoved = victim.date
                } else {
                    oldestLeft = oldestLeft ?? victim.date
                }
                return false
            }
            if stop {
                oldestLeft = oldestLeft ?? victim.date
                break
            }
        }
        // The oldest entry left: the first candidate not removed, else (some were never
        // candidates) no older than the last one removed.
        let oldest = oldestLeft ?? (candidates.overflowed ? lastRemoved : .infinity)
        state.withLock { $0.unindexedOldest = oldest }
        let stillOver = state.withLock { $0.estimatedTotal > limit / 2 }
        return (removed, stillOver && candidates.overflowed)
    }

    private func removeIfUnchanged(_ entry: DateOrderedIndex.Entry, into result: inout CleanResult) -> Bool {
        state.withLock { unlinkIfUnchanged(entry, &$0, into: &result) }
    }

    /// Unlinks an entry a scan saw unless it changed since (rewritten, or read under access-date
    /// expiry). Called under the lock, so a store of this process cannot come between the check
    /// and the unlink.
    func unlinkIfUnchanged(
        _ entry: DateOrderedIndex.Entry, _ state: inout CacheState, into result: inout CleanResult
    ) -> Bool {
        let path = directoryPath + "/" + entry.name
        guard let st = POSIX.lstatPath(path), POSIX.isRegular(st), Int(st.st_size) == entry.size,
            DirectoryScanner.entryDate(st, expireBy: configuration.expireBy) == entry.date,
            POSIX.unlinkPath(path) == 0
        else { return false }
        state.account(-entry.size, flushAtBytes: ledgerBatchBytes)
        result.removedCount += 1
        result.removedBytes += entry.size
        return true
    }
}
