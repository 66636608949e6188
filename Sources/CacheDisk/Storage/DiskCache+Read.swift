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
    /// The first usable file for `key`: the cache directory (name with, then without extension
    /// unless ``Configuration/readsNamesWithoutExtension`` is off), then each read-only path. Expired entries of the cache directory are misses.
    func read(key: String) -> EntryReader.Hit? {
        let primary = naming.entryPath(forKey: key, in: directoryPath)
        let now = POSIX.now()
        let policy = EntryReader.Policy(
            now: now, maxAge: configuration.maxAge >= 0 ? configuration.maxAge : nil,
            expireBy: configuration.expireBy, accessRefreshInterval: accessRefreshInterval)
        var candidate = primary
        while true {
            switch EntryReader.read(path: candidate.path, policy: policy) {
            case .hit(let hit):
                noteRead(candidate, hit: hit)
                return hit
            case .notFound:
                noteMissing(candidate)
            case .unusable:
                break
            }
            guard candidate.hasExtension, configuration.readsNamesWithoutExtension else { break }
            candidate = candidate.withoutExtension
        }
        let readOnly = EntryReader.Policy(
            now: now, maxAge: nil, expireBy: .modificationDate, accessRefreshInterval: nil, followsSymlinks: true)
        for directory in readOnlyPaths {
            for candidate in primary.moved(to: directory).candidates {
                if case .hit(let hit) = EntryReader.read(path: candidate.path, policy: readOnly) { return hit }
            }
        }
        return nil
    }

    /// Under access-date expiry a read refreshes the file's access time when it is older than
    /// this (so a read is not always a metadata write): an eighth of the maximum age, at most a minute.
    var accessRefreshInterval: Double? {
        guard configuration.expireBy == .accessDate else { return nil }
        return configuration.maxAge > 0 ? min(60, configuration.maxAge / 8) : 60
    }

    /// Keeps the index in step with what a read saw: a newer access date, or a file another
    /// process wrote (then the index disagrees with the directory and is rebuilt before use).
    private func noteRead(_ location: EntryPath, hit: EntryReader.Hit) {
        // Under modification-date expiry a read changes no date; files another process wrote
        // reach the index through the ledger's generation, so the hot path takes no lock.
        let accessOrdered = configuration.expireBy == .accessDate
        guard accessOrdered else { return }
        let name = location.name
        state.withLock { state in
            guard state.isIndexed else { return }
            if let known = state.index[name] {
                if known.size != hit.fileSize {
                    state.upsert(DateOrderedIndex.Entry(name: name, size: hit.fileSize, date: hit.date))
                    state.isStale = true
                } else if hit.date > known.date {
                    state.touch(name, date: hit.date)
                }
            } else if state.isBuilt {
                state.upsert(DateOrderedIndex.Entry(name: name, size: hit.fileSize, date: hit.date))
                state.isStale = true
            }
        }
    }

    /// A file the index lists is gone: another process (or a person) removed it, so the index
    /// is rebuilt before it is next used for trimming or totals.
    private func noteMissing(_ location: EntryPath) {
        let name = location.name
        state.withLock { state in
            if state.index[name] != nil {
                state.remove(name)
                state.isStale = true
            }
        }
    }

    /// Where an unexpired entry for `key` is: a path, or nil.
    func locate(key: String) -> String? {
        let primary = naming.entryPath(forKey: key, in: directoryPath)
        let now = POSIX.now()
        for candidate in configuration.readsNamesWithoutExtension ? primary.candidates : [primary] {
            let path = candidate.path
            guard let st = POSIX.lstatPath(path), POSIX.isRegular(st), st.st_size > 0 else { continue }
            if configuration.maxAge >= 0 {
                var date = POSIX.seconds(st.st_mtim)
                if configuration.expireBy == .accessDate { date = max(date, POSIX.seconds(st.st_atim)) }
                if now - date >= configuration.maxAge { continue }
            }
            return path
        }
        for directory in readOnlyPaths {
            for candidate in primary.moved(to: directory).candidates {
                let path = candidate.path
                if let st = POSIX.lstatPath(path), POSIX.isRegular(st), st.st_size > 0 { return path }
            }
        }
        return nil
    }
}
