#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Lists a cache directory with `readdir` and `fstatat`: entry files (names not starting with a
/// dot) and temporary files left by interrupted stores.
enum DirectoryScanner {
    struct Result {
        var entries: [DateOrderedIndex.Entry] = []
        /// Temporary files and their modification dates.
        var temporaries: [(name: String, date: Double)] = []
    }

    /// Scans `directory`; an unreadable or missing directory gives an empty result.
    static func scan(_ directory: String, expireBy: DiskCache.ExpirationDate) -> Result {
        var result = Result()
        guard let dir = opendir(directory) else { return result }
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
                result.temporaries.append((name, modified))
            } else {
                let date = expireBy == .accessDate ? max(modified, POSIX.seconds(st.st_atim)) : modified
                result.entries.append(DateOrderedIndex.Entry(name: name, size: Int(st.st_size), date: date))
            }
        }
        return result
    }
}
