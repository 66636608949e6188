/// Everything a ``DiskCache`` knows about its directory, guarded by one mutex.
///
/// The index is built once by a scan on the maintenance queue and then kept up to date by every
/// store, remove and read of this process. Own changes reach the shared ``Ledger`` in batches.
struct CacheState {
    /// Something that changed while a scan ran, replayed onto the scanned index.
    enum JournalEntry {
        case upsert(DateOrderedIndex.Entry)
        case remove(String)
        case touch(String, Double)
    }

    var index = DateOrderedIndex()
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

    /// The best estimate of the directory's total size: the shared total plus own unflushed
    /// changes, or the index alone without a ledger.
    var estimatedTotal: Int {
        if let ledgerState, ledgerState.initialized { return max(0, ledgerState.total + pendingBytes) }
        return index.totalSize
    }

    mutating func upsert(_ entry: DateOrderedIndex.Entry) {
        journal?.append(.upsert(entry))
        index.upsert(entry)
    }

    mutating func remove(_ name: String) {
        journal?.append(.remove(name))
        index.remove(name)
    }

    mutating func touch(_ name: String, date: Double) {
        journal?.append(.touch(name, date))
        index.touch(name, date: date)
    }

    /// Records an own size change for the ledger; flushes when the batch is large.
    mutating func account(_ delta: Int, flushAtBytes: Int) {
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

    /// Ends a scan: replaces the index with the scanned one plus the journal and resets the ledger.
    mutating func finishScan(_ scanned: [DateOrderedIndex.Entry], startState: Ledger.State?) {
        var rebuilt = DateOrderedIndex(scanned)
        for change in journal ?? [] {
            switch change {
            case .upsert(let entry): rebuilt.upsert(entry)
            case .remove(let name): rebuilt.remove(name)
            case .touch(let name, let date): rebuilt.touch(name, date: date)
            }
        }
        journal = nil
        statistics.scans += 1
        index = rebuilt
        isBuilt = true
        isStale = false
        pendingBytes = 0
        pendingOperations = 0
        ledgerState = ledger?.reset(scannedTotal: rebuilt.totalSize, startState: startState)
    }
}
