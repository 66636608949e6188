#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import ImageKernel

extension DiskCache {
    /// Stores `data` and its validators under `key`, replacing any entry.
    ///
    /// A new entry is written under its own name (created with `O_EXCL`); until it is whole a
    /// reader finds fewer bytes than its header declares, a miss. An existing entry is replaced
    /// through a temporary file renamed over it, so readers (in this or another process) see the
    /// old entry or the new one. On this machine's ext4, the new-entry write takes about 0.7x the
    /// time of the temporary file and rename (fewer directory changes). If the store takes the directory over
    /// its size limit, a background trim follows; the store itself never scans the directory.
    /// - Throws: ``ImageKernelError`` (stage `.cache`, plugin `"CacheDisk"`): `diskFull`,
    ///   `permissionDenied`, `ioError`, or `tooLarge` when the entry alone exceeds
    ///   ``Configuration/maxSize``. Nothing else in the cache is lost.
    public func storeData(_ data: Data, validators: CacheValidators? = nil, forKey key: String) throws(ImageKernelError) {
        let location = naming.entryPath(forKey: key, in: directoryPath)
        let header = EntryFormat.header(payloadLength: data.count, validators: validators)
        let fileSize = header.count + data.count
        if configuration.maxSize > 0, fileSize > configuration.maxSize {
            throw ImageKernelError(
                stage: .cache, plugin: Self.pluginName, code: .tooLarge,
                message: "an entry of \(fileSize) bytes does not fit in a cache of \(configuration.maxSize) bytes")
        }
        var recreated = false
        while true {
            switch attemptStore(location, header: header, data: data) {
            case .success:
                return
            case .failure(let failure) where (failure.code == ENOENT || failure.code == ENOTDIR) && !recreated:
                // The directory was deleted while we run: recreate it once and try again.
                recreated = true
                recreateDirectory()
            case .failure(let failure):
                throw failure.kernelError
            }
        }
    }

    private func attemptStore(_ location: EntryPath, header: [UInt8], data: Data) -> Result<Void, SystemCallFailure> {
        // An entry the index lists is replaced at once; any other is tried as a new one first
        // (a name that turns out to exist costs one failed `open` more).
        let listed = state.withLock { $0.isIndexed && $0.index[location.name] != nil }
        let outcome: Result<Bool, SystemCallFailure>
        if listed {
            outcome = replace(location, header: header, data: data)
        } else {
            outcome = storeNew(location, header: header, data: data)
        }
        return outcome.map { schedule in
            if schedule { maintenance.async { self.automaticMaintenance() } }
        }
    }

    /// Writes the file of an entry under its own name; if the name exists after all, replaces it.
    private func storeNew(_ location: EntryPath, header: [UInt8], data: Data) -> Result<Bool, SystemCallFailure> {
        switch EntryWriter.writeNew(
            path: location.path, header: header, payload: data, synchronize: configuration.synchronizesWrites, faults: configuration.faults)
        {
        case .success(let size):
            // No file had the name (O_EXCL), so it replaced whatever the index still lists.
            return record(location.name, size: size) { state in .success(state.index[location.name]?.size) }
        case .failure(let failure) where failure.code == EEXIST:
            return replace(location, header: header, data: data)
        case .failure(let failure):
            return .failure(failure)
        }
    }

    /// Replaces the file of an existing entry: a temporary file renamed over it.
    private func replace(_ location: EntryPath, header: [UInt8], data: Data) -> Result<Bool, SystemCallFailure> {
        let temporary: (path: String, size: Int)
        switch EntryWriter.writeTemporary(
            directory: directoryPath, header: header, payload: data,
            synchronize: configuration.synchronizesWrites, faults: configuration.faults)
        {
        case .success(let written): temporary = written
        case .failure(let failure): return .failure(failure)
        }
        let finalPath = location.path
        let outcome = record(location.name, size: temporary.size) { state in
            // The size being replaced: from the index when it is trustworthy, else from the file.
            var replaced = state.index[location.name]?.size
            if replaced == nil, state.isStale || !state.isBuilt || !state.isIndexed, let st = POSIX.lstatPath(finalPath), POSIX.isRegular(st) {
                replaced = Int(st.st_size)
            }
            guard rename(temporary.path, finalPath) == 0 else {
                return .failure(SystemCallFailure(code: errno, action: "cannot rename into", path: finalPath))
            }
            return .success(replaced)
        }
        if case .failure = outcome { unlink(temporary.path) }
        return outcome
    }

    /// Under the state lock: `commit` makes the file of `size` bytes the entry `name` and returns
    /// the size it replaced; then the index and the totals follow. Returns whether a trim should.
    private func record(
        _ name: String, size: Int, commit: (inout CacheState) -> Result<Int?, SystemCallFailure>
    ) -> Result<Bool, SystemCallFailure> {
        let now = POSIX.now()
        let flushAt = ledgerBatchBytes
        return state.withLock { state in
            commit(&state).map { replaced in
                state.upsert(DateOrderedIndex.Entry(name: name, size: size, date: now))
                state.account(size - (replaced ?? 0), flushAtBytes: flushAt)
                return scheduleMaintenanceIfNeeded(&state, now: now)
            }
        }
    }

    /// Removes the entry for `key` (under its name with and without extension).
    /// - Throws: ``ImageKernelError`` when a file exists but cannot be removed.
    public func removeData(forKey key: String) throws(ImageKernelError) {
        let candidates = naming.entryPath(forKey: key, in: directoryPath).candidates
        let flushAt = ledgerBatchBytes
        let failure = state.withLock { state -> SystemCallFailure? in
            var failure: SystemCallFailure?
            for candidate in candidates {
                let path = candidate.path
                let name = candidate.name
                var size = state.index[name]?.size
                if size == nil, let st = POSIX.lstatPath(path), POSIX.isRegular(st) { size = Int(st.st_size) }
                let code = POSIX.unlinkPath(path)
                if code == 0 {
                    state.account(-(size ?? 0), flushAtBytes: flushAt)
                } else if code != ENOENT && code != ENOTDIR {
                    failure = failure ?? SystemCallFailure(code: code, action: "cannot remove", path: path)
                    continue
                }
                state.remove(name)
            }
            return failure
        }
        if let failure { throw failure.kernelError }
    }

    /// Own size changes are added to the shared ledger in batches of about this many bytes.
    var ledgerBatchBytes: Int {
        configuration.maxSize > 0 ? max(64 << 10, configuration.maxSize / 64) : 16 << 20
    }

    /// Recreates a deleted cache directory and starts over with an empty index and a new ledger.
    func recreateDirectory() {
        _ = POSIX.makeDirectories(directoryPath)
        state.withLock { state in
            if let ledger = state.ledger, ledger.isCurrent { return }
            state.ledger = Ledger(directory: directoryPath)
            state.ledgerState = nil
            state.index = DateOrderedIndex()
            state.unindexedTotal = 0
            state.pendingBytes = 0
            state.pendingOperations = 0
            // Another process may have recreated it first and stored entries already.
            state.isStale = true
        }
    }
}
