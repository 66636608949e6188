import CImageProxy
import Foundation

#if canImport(Glibc)
import Glibc

private func systemOpen(_ path: String, _ flags: Int32) -> Int32 { Glibc.open(path, flags) }
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { Glibc.read(fd, buffer, count) }
private let openPathOnly = cimageproxy_o_path()
#elseif canImport(Darwin)
import Darwin

private func systemOpen(_ path: String, _ flags: Int32) -> Int32 { Darwin.open(path, flags) }
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { Darwin.read(fd, buffer, count) }
private let openPathOnly: Int32 = 0
#endif

/// Opens a path relative to a root directory so that the file opened is the file checked: one
/// system call resolves the path and opens it, never a check of the path followed by a second
/// resolution that a swapped symlink could redirect.
///
/// - ``Method/beneath``: `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)` (Linux 5.6): the kernel
///   refuses (`EXDEV`) any resolution that leaves the root — `..`, absolute symlinks, relative
///   ones that climb out — and `/proc` magic links; a symlink that stays inside is followed.
/// - ``Method/noFollowWalk``: where the kernel answers `ENOSYS`, each component is opened with
///   `openat(O_NOFOLLOW)` from the one before, starting at the root: no symlink is followed at all
///   (`ELOOP`, refused), those that stay inside included.
///
/// The file is opened non-blocking (a FIFO never hangs the open) and must be a regular file.
public struct LocalFileOpener: Sendable {
    /// How a path is resolved under the root.
    public enum Method: String, Sendable {
        /// `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`, falling back to
        /// ``noFollowWalk`` where the kernel lacks it.
        case beneath
        /// A component-by-component `openat(O_NOFOLLOW)` walk.
        case noFollowWalk
    }

    /// Why an open failed.
    public enum Failure: Error, Sendable, Equatable {
        /// No such file (or a directory, or not a regular file).
        case notFound
        /// The path leaves the root or goes through a symlink that may not be followed.
        case outsideRoot
        /// The service may not read it.
        case permissionDenied
        /// Any other `errno`.
        case system(Int32)
    }

    public let method: Method

    public init(method: Method = .beneath) { self.method = method }

    /// Opens `relative` (no leading `/`, no `.` or `..` components, checked by the caller) under the
    /// directory `rootPath`. Returns a descriptor open for reading a regular file; the caller closes it.
    public func open(_ relative: String, under rootPath: String) -> Result<Int32, Failure> {
        let root = systemOpen(rootPath.isEmpty ? "/" : rootPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else { return .failure(Self.failure(errno)) }
        defer { close(root) }
        let flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK
        var fd: Int32 = -ENOSYS
        if method == .beneath {
            fd = cimageproxy_openat2(root, relative, UInt64(flags), cimageproxy_resolve_beneath_no_magiclinks())
        }
        if fd == -ENOSYS { fd = Self.walk(relative, from: root, flags: flags) }
        guard fd >= 0 else { return .failure(Self.failure(-fd)) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            return .failure(.notFound)
        }
        return .success(fd)
    }

    /// Opens each directory component with `openPathOnly | O_DIRECTORY | O_NOFOLLOW` from the one before,
    /// then the last with `O_NOFOLLOW`. Returns the descriptor or -errno.
    static func walk(_ relative: String, from root: Int32, flags: Int32) -> Int32 {
        let components = relative.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let last = components.last else { return -ENOENT }
        var directory = root
        defer { if directory != root { close(directory) } }
        for component in components.dropLast() {
            let next = openat(directory, component, openPathOnly | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else { return -(errno == ENOTDIR ? ELOOP : errno) }
            if directory != root { close(directory) }
            directory = next
        }
        let fd = openat(directory, last, flags | O_NOFOLLOW)
        return fd >= 0 ? fd : -errno
    }

    /// The path the kernel opened `fd` at (`/proc/self/fd`), nil where it cannot tell.
    public static func path(of fd: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func failure(_ code: Int32) -> Failure {
        switch code {
        // ENAMETOOLONG and ENXIO (a socket, opened non-blocking) are no file to serve, as before
        // (realpath found none).
        case ENOENT, ENOTDIR, EISDIR, ENAMETOOLONG, ENXIO: return .notFound
        case EXDEV, ELOOP: return .outsideRoot
        case EACCES, EPERM: return .permissionDenied
        default: return .system(code)
        }
    }

    /// Reads the whole file behind `fd` (a regular file), at most `limit` bytes.
    /// - Returns: the bytes, or nil when the file holds more than `limit`.
    /// - Throws: the `errno` of a failed read, as ``Failure/system(_:)``.
    public static func read(_ fd: Int32, limit: Int64) throws(Failure) -> Data? {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system(errno)
            }
            if count == 0 { return data }
            data.append(contentsOf: chunk[0..<count])
            if Int64(data.count) > limit { return nil }
        }
    }
}
