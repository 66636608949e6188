#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import ImageKernel

/// Thin wrappers over the system calls the cache uses, with errno turned into typed errors.
enum POSIX {
    /// `UTIME_NOW` and `UTIME_OMIT` from <sys/stat.h> (macros Swift does not import on Linux).
    static let utimeNow = (1 << 30) - 1
    static let utimeOmit = (1 << 30) - 2

    /// Seconds since the epoch, from the same clock as file timestamps.
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return seconds(ts)
    }

    static func seconds(_ ts: timespec) -> Double {
        Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func timespecFrom(_ seconds: Double) -> timespec {
        let whole = seconds.rounded(.down)
        return timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9))
    }

    /// `st_mode` says regular file.
    static func isRegular(_ st: stat) -> Bool { (st.st_mode & S_IFMT) == S_IFREG }

    /// `stat` of a path without following a final symlink; nil when it does not exist or fails.
    static func lstatPath(_ path: String) -> stat? {
        var st = stat()
        return lstat(path, &st) == 0 ? st : nil
    }

    /// Creates `path` and its missing parents with mode 0755. Returns 0 or an errno.
    static func makeDirectories(_ path: String) -> Int32 {
        if mkdir(path, 0o755) == 0 { return 0 }
        let error = errno
        if error == EEXIST {
            var st = stat()
            guard stat(path, &st) == 0 else { return errno }
            return (st.st_mode & S_IFMT) == S_IFDIR ? 0 : ENOTDIR
        }
        guard error == ENOENT else { return error }
        let parent = (path as NSString).deletingLastPathComponent
        guard !parent.isEmpty, parent != path else { return error }
        let parentResult = makeDirectories(parent)
        guard parentResult == 0 else { return parentResult }
        if mkdir(path, 0o755) == 0 || errno == EEXIST { return 0 }
        return errno
    }

    /// Unlinks a file; returns 0 or an errno.
    static func unlinkPath(_ path: String) -> Int32 {
        unlink(path) == 0 ? 0 : errno
    }

    /// The message for an errno.
    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// The typed cache error for an errno from a write, rename or directory creation.
    static func error(_ code: Int32, _ action: String, path: String) -> ImageKernelError {
        let kernelCode: ImageKernelError.Code
        switch code {
        case ENOSPC, EDQUOT, EFBIG: kernelCode = .diskFull
        case EACCES, EPERM, EROFS: kernelCode = .permissionDenied
        case ENOTDIR, EISDIR: kernelCode = .isDirectory
        case ENAMETOOLONG: kernelCode = .invalidArgument
        default: kernelCode = .ioError
        }
        return ImageKernelError(
            stage: .cache, plugin: DiskCache.pluginName, code: kernelCode,
            message: "\(action) \(path): \(describe(code)) (errno \(code))")
    }
}
