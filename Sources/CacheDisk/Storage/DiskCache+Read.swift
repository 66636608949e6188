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
    /// The first usable file for `key`: the cache directory (name with, then without extension),
    /// then each read-only path. Expired entries of the cache directory are misses.
    func read(key: String) -> EntryReader.Hit? {
        let names = naming.names(forKey: key)
        let now = POSIX.now()
        let policy = EntryReader.Policy(
            now: now, maxAge: configuration.maxAge >= 0 ? configuration.maxAge : nil,
            expireBy: configuration.expireBy, accessRefreshInterval: accessRefreshInterval)
        for name in names.all {
            switch EntryReader.read(path: directoryPath + "/" + name, policy: policy) {
            case .hit(let hit):
                noteRead(name: name, hit: hit)
                return hit
            case .notFound:
                noteMissing(name: name)
            case .unusable:
                continue
            }
        }
        let readOnly = EntryReader.Policy(now: now, maxAge: nil, expireBy: .modificationDate, accessRefreshInterval: nil, followsSymlinks: true)
        for directory in readOnlyPaths {
            for name in names.all {
                if case .hit(let hit) = EntryReader.read(path: directory + "/" + name, policy: readOnly) { return hit }
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
    private func noteRead(name: String, hit: EntryReader.Hit) {
        let accessOrdered = configuration.expireBy == .accessDate
        state.withLock { state in
            if let known = state.index[name] {
                if known.size != hit.fileSize {
                    state.upsert(DateOrderedIndex.Entry(name: name, size: hit.fileSize, date: hit.date))
                    state.isStale = true
                } else if accessOrdered, hit.date > known.date {
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
    private func noteMissing(name: String) {
        state.withLock { state in
            if state.index[name] != nil {
                state.remove(name)
                state.isStale = true
            }
        }
    }

    /// Where an unexpired entry for `key` is: a path, or nil.
    func locate(key: String) -> String? {
        let names = naming.names(forKey: key)
        let now = POSIX.now()
        for name in names.all {
            let path = directoryPath + "/" + name
            guard let st = POSIX.lstatPath(path), POSIX.isRegular(st), st.st_size > 0 else { continue }
            if configuration.maxAge >= 0 {
                var date = POSIX.seconds(st.st_mtim)
                if configuration.expireBy == .accessDate { date = max(date, POSIX.seconds(st.st_atim)) }
                if now - date >= configuration.maxAge { continue }
            }
            return path
        }
        for directory in readOnlyPaths {
            for name in names.all {
                let path = directory + "/" + name
                if let st = POSIX.lstatPath(path), POSIX.isRegular(st), st.st_size > 0 { return path }
            }
        }
        return nil
    }
}
