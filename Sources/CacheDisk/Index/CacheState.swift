/// Everything a ``DiskCache`` knows about its directory, guarded by one mutex.
///
/// The index is built once by a scan on the maintenance queue and then kept up to date by every
/// store, remove and read of this process. Own changes reach the shared ``Ledger`` in batches.
///
/// The index holds at most ``maxIndexed`` entries. A directory with more runs *unindexed*: the
/// index is dropped and stays empty, the total comes from the ledger (or ``unindexedTotal``), the
/// oldest date from the last scan, and trims stream the directory instead
/// (`DiskCache.maintainUnindexed`). Memory then stays the same for any number of entries.
struct CacheState {
    /// Something that changed while a scan ran, replayed onto the scanned index.
    enum JournalEntry {
        case upsert(DateOrderedIndex.Entry)
        case remove(String)
        case touch(String, Double)
    }

    var index = DateOrderedIndex()
    /// Whether ``index`` lists every entry (false once the directory held more than ``maxIndexed``).
    private(set) var isIndexed: Bool
    /// The most entries the index may hold.
    let maxIndexed: Int
    /// Unindexed: the total size as of the last scan plus own changes since.
    var unindexedTotal = 0
    /// Unindexed: the oldest entry's date at the last scan (stores only add newer entries, so
    /// this errs old and at worst starts a pass that finds nothing to expire).
    var unindexedOldest = Double.infinity
    /// Whether ``index`` reflects a scan (it starts empty and unbuilt).
    var isBuilt = false
    /// Changes recorded while a scan runs; nil when none runs.
    var journal: [JournalEntry]? = []
    /// Another process changed the directory since the index was built, or the index found files
    /// it did not expect: rescan before trimming.
    var isStale = false

    var ledger: Ledger?
    /// Own size changes not yet added to the ledger.
    var pendingBytes = 0
    var pendingOperations = 0
    /// The ledger's state after this process's last exchange with it.
    var ledgerState: Ledger.State?

    /// Scans and trimming passes so far (tests check that stores do not scan).
    var statistics = DiskCache.Statistics()

    /// A maintenance pass is queued or running.
    var maintenanceScheduled = false
    /// When the last automatic pass removed nothing although it was needed (avoids busy loops
    /// on files that cannot be removed).
    var lastFruitlessPass = -Double.infinity

    /// A state with an empty, unbuilt index of at most `maxIndexed` entries (0: never indexed).
    init(maxIndexed: Int) {
        self.maxIndexed = max(0, maxIndexed)
        isIndexed = maxIndexed > 0
    }

    /// The best estimate of the directory's total size: the shared total plus own unflushed
    /// changes, or without a ledger the index's (or the unindexed) total.
    var estimatedTotal: Int {
        if let ledgerState, ledgerState.initialized { return max(0, ledgerState.total + pendingBytes) }
        return isIndexed ? index.totalSize : max(0, unindexedTotal)
    }

    /// The oldest entry's date, if any is known.
    var oldestDate: Double? {
        isIndexed ? index.oldest?.date : (unindexedOldest.isFinite ? unindexedOldest : nil)
    }

    mutating func upsert(_ entry: DateOrderedIndex.Entry) {
        guard isIndexed else { return }
        journal?.append(.upsert(entry))
        index.upsert(entry)
        if index.count > maxIndexed { dropIndex() }
    }

    mutating func remove(_ name: String) {
        guard isIndexed else { return }
        journal?.append(.remove(name))
        index.remove(name)
    }

    mutating func touch(_ name: String, date: Double) {
        guard isIndexed else { return }
        journal?.append(.touch(name, date))
        index.touch(name, date: date)
    }

    /// Goes unindexed: frees the index, keeping its total and oldest date as estimates (a scan
    /// running now finishes unindexed and replaces them).
    private mutating func dropIndex() {
        unindexedTotal = index.totalSize
        unindexedOldest = index.oldest?.date ?? .infinity
        index = DateOrderedIndex()
        isIndexed = false
        if journal != nil { journal = [] }
    }

    /// Records an own size change for the ledger; flushes when the batch is large.
    mutating func account(_ delta: Int, flushAtBytes: Int) {
        if !isIndexed { unindexedTotal += delta }
        pendingBytes += delta
        pendingOperations += 1
        if abs(pendingBytes) >= flushAtBytes || pendingOperations >= 256 { flush() }
    }

    /// Adds own pending changes to the ledger and notices other processes' changes.
    /// Does nothing while a scan runs (the scan's reset accounts for them).
    mutating func flush() {
        guard journal == nil, let ledger else { return }
        guard let (before, after) = ledger.add(pendingBytes) else { return }
        if !before.initialized || before.generation != ledgerState?.generation { isStale = true }
        ledgerState = after
        pendingBytes = 0
        pendingOperations = 0
    }

    /// Starts a scan: own changes go to the journal from now on.
    /// Returns the ledger state the scan starts from.
    mutating func beginScan() -> Ledger.State? {
        flush()
        journal = journal ?? []
        return ledger?.current()
    }

    /// Ends a scan: replaces the index with the scanned entries plus the journal and resets the
    /// ledger. `scanned` is nil when the directory held more entries than the index may: the
    /// cache goes (or stays) unindexed with the scan's `count`, `totalSize` and `oldest`.
    mutating func finishScan(
        _ scanned: [DateOrderedIndex.Entry]?, totalSize: Int, oldest: Double, startState: Ledger.State?
    ) {
        guard isIndexed, let scanned else {
            // Own stores during the scan may or may not have been seen: count them (errs high).
            let total = totalSize + max(0, pendingBytes)
            isIndexed = false
            index = DateOrderedIndex()
            unindexedTotal = total
            unindexedOldest = oldest
            finish(scannedTotal: total, startState: startState)
            return
        }
        var rebuilt = DateOrderedIndex(scanned)
        for change in journal ?? [] {
            switch change {
            case .upsert(let entry): rebuilt.upsert(entry)
            case .remove(let name): rebuilt.remove(name)
            case .touch(let name, let date): rebuilt.touch(name, date: date)
            }
        }
        index = rebuilt
        finish(scannedTotal: rebuilt.totalSize, startState: startState)
    }

    private mutating func finish(scannedTotal: Int, startState: Ledger.State?) {
        journal = nil
        statistics.scans += 1
        isBuilt = true
        isStale = false
        pendingBytes = 0
        pendingOperations = 0
        ledgerState = ledger?.reset(scannedTotal: scannedTotal, startState: startState)
    }
}
