#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Lists a cache directory with `readdir` and `fstatat`: entry files (names not starting with a
/// dot) and temporary files left by interrupted stores. Entries are handed to a closure one at a
/// time, so a directory of millions of files is listed in constant memory.
enum DirectoryScanner {
    /// What a scan saw apart from the entries it handed out.
    struct Summary {
        var count = 0
        var totalSize = 0
        /// Temporary files and their modification dates.
        var temporaries: [(name: String, date: Double)] = []
    }

    /// Scans `directory`, calling `visit` for each entry file; an unreadable or missing
    /// directory visits nothing.
    @discardableResult
    static func scan(
        _ directory: String, expireBy: DiskCache.ExpirationDate, visit: (DateOrderedIndex.Entry) -> Void
    ) -> Summary {
        var summary = Summary()
        guard let dir = opendir(directory) else { return summary }
        defer { closedir(dir) }
        let fd = dirfd(dir)
        while let item = readdir(dir) {
            let name = withUnsafePointer(to: &item.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            let isTemporary = name.hasPrefix(EntryWriter.temporaryPrefix)
            if name.hasPrefix("."), !isTemporary { continue }
            var st = stat()
            guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, POSIX.isRegular(st) else { continue }
            let modified = POSIX.seconds(st.st_mtim)
            if isTemporary {
                summary.temporaries.append((name, modified))
            } else {
                let entry = DateOrderedIndex.Entry(name: name, size: Int(st.st_size), date: entryDate(st, expireBy: expireBy))
                summary.count += 1
                summary.totalSize += entry.size
                visit(entry)
            }
        }
        return summary
    }

    /// The date that counts for an entry's age: its modification date, or under access-date
    /// expiry the later of its access and modification dates.
    static func entryDate(_ st: stat, expireBy: DiskCache.ExpirationDate) -> Double {
        let modified = POSIX.seconds(st.st_mtim)
        return expireBy == .accessDate ? max(modified, POSIX.seconds(st.st_atim)) : modified
    }
}
