#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import ImageKernel

/// Reads one entry file with `open`/`fstat`/`read` into a single buffer that the returned `Data`
/// owns (no copy of the payload).
enum EntryReader {
    /// How a read treats age.
    struct Policy {
        var now: Double
        /// Entries older than this many seconds are expired; nil: never.
        var maxAge: Double?
        var expireBy: DiskCache.ExpirationDate
        /// Refresh the file's access time when it is older than this many seconds; nil: never.
        var accessRefreshInterval: Double?
        /// Whether a symbolic link is followed (read-only paths) or is a miss (the cache directory).
        var followsSymlinks = false
    }

    /// A file that was read.
    struct Hit {
        var data: Data
        var validators: CacheValidators?
        var fileSize: Int
        /// The date that counts for age under the policy's `expireBy`, after any refresh.
        var date: Double
    }

    enum Outcome {
        case hit(Hit)
        /// No file by that name (or the directory is gone): try the next name.
        case notFound
        /// A file exists but is expired, unreadable, not a regular file or not a valid entry.
        case unusable
    }

    /// The largest file read as an entry.
    static let maxFileSize = Int(Int32.max)

    static func read(path: String, policy: Policy) -> Outcome {
        let fd = open(path, O_RDONLY | O_CLOEXEC | (policy.followsSymlinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else {
            let code = errno
            return code == ENOENT || code == ENOTDIR ? .notFound : .unusable
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, POSIX.isRegular(st), st.st_size <= maxFileSize else { return .unusable }
        let accessDate = POSIX.seconds(st.st_atim)
        var date = policy.expireBy == .accessDate ? max(accessDate, POSIX.seconds(st.st_mtim)) : POSIX.seconds(st.st_mtim)
        if let maxAge = policy.maxAge, policy.now - date >= maxAge { return .unusable }

        let size = Int(st.st_size)
        let base = UnsafeMutableRawPointer.allocate(byteCount: max(size, 1), alignment: 16)
        var total = 0
        while total < size {
            let n = Glibc.read(fd, base + total, size - total)
            if n > 0 {
                total += n
            } else if n == 0 {
                break
            } else if errno != EINTR {
                base.deallocate()
                return .unusable
            }
        }
        guard let parsed = EntryFormat.parse(UnsafeRawBufferPointer(start: base, count: total)) else {
            base.deallocate()
            return .unusable
        }
        if let interval = policy.accessRefreshInterval, policy.now - accessDate > interval {
            var times = [timespec(tv_sec: 0, tv_nsec: POSIX.utimeNow), timespec(tv_sec: 0, tv_nsec: POSIX.utimeOmit)]
            if futimens(fd, &times) == 0, policy.expireBy == .accessDate { date = policy.now }
        }
        // The Data views the payload inside the buffer and frees the whole buffer when it goes.
        let offset = parsed.payloadOffset
        let data = Data(
            bytesNoCopy: base + offset, count: parsed.payloadLength,
            deallocator: .custom { payload, _ in (payload - offset).deallocate() })
        return .hit(Hit(data: data, validators: parsed.validators, fileSize: total, date: date))
    }
}
