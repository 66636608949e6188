#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import ImageKernel

/// A failed system call, kept raw so callers can react to the errno (recreate a deleted directory)
/// before turning it into an ``ImageKernelError``.
struct SystemCallFailure: Error {
    var code: Int32
    var action: String
    var path: String

    var kernelError: ImageKernelError { POSIX.error(code, action, path: path) }
}

/// Writes an entry: a new one under its own name, a replacement to a fresh temporary file beside
/// its final name, which the caller renames over it.
enum EntryWriter {
    /// Prefix of temporary files; names starting with "." are never entries.
    static let temporaryPrefix = ".tmp-"

    static func temporaryName() -> String {
        temporaryPrefix + String(UInt64.random(in: .min ... .max), radix: 16)
    }

    /// Creates `directory/.tmp-…`, writes header and payload, optionally fsyncs, closes.
    /// On failure the temporary file is gone. Returns the temporary path and the file size.
    static func writeTemporary(
        directory: String, header: [UInt8], payload: Data, synchronize: Bool, faults: FaultInjection?
    ) -> Result<(path: String, size: Int), SystemCallFailure> {
        let path = directory + "/" + temporaryName()
        return writeNew(path: path, header: header, payload: payload, synchronize: synchronize, faults: faults).map { (path, $0) }
    }

    /// Creates `path`, which must not exist (`O_EXCL`: fails with `EEXIST` otherwise, touching
    /// nothing), writes header and payload, optionally fsyncs, closes. On failure the file is
    /// gone. Returns the file size.
    ///
    /// A new entry is written this way under its own name: until the write is over a reader
    /// finds fewer payload bytes than the header declares, which is a miss
    /// (``EntryFormat/parse(_:)``), and so is what a killed writer leaves.
    static func writeNew(
        path: String, header: [UInt8], payload: Data, synchronize: Bool, faults: FaultInjection?
    ) -> Result<Int, SystemCallFailure> {
        if let code = faults?.createErrno {
            return .failure(SystemCallFailure(code: code, action: "cannot create", path: path))
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            return .failure(SystemCallFailure(code: errno, action: "cannot create", path: path))
        }
        func fail(_ code: Int32, _ action: String) -> Result<Int, SystemCallFailure> {
            close(fd)
            unlink(path)
            return .failure(SystemCallFailure(code: code, action: action, path: path))
        }
        if let code = faults?.writeErrno { return fail(code, "cannot write") }
        let written = header.withUnsafeBytes { head in
            payload.withUnsafeBytes { body in writeAll(fd, head, body) }
        }
        if written != 0 { return fail(written, "cannot write") }
        if synchronize, fsync(fd) != 0 { return fail(errno, "cannot sync") }
        if close(fd) != 0 {
            let code = errno
            unlink(path)
            return .failure(SystemCallFailure(code: code, action: "cannot close", path: path))
        }
        return .success(header.count + payload.count)
    }

    /// Writes both buffers with `writev`, resuming after partial writes. Returns 0 or an errno.
    private static func writeAll(_ fd: Int32, _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> Int32 {
        var offset = 0
        let total = first.count + second.count
        while offset < total {
            var vectors: [iovec] = []
            if offset < first.count, let base = first.baseAddress {
                vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: base + offset), iov_len: first.count - offset))
            }
            let secondOffset = max(0, offset - first.count)
            if secondOffset < second.count, let base = second.baseAddress {
                vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: base + secondOffset), iov_len: second.count - secondOffset))
            }
            let n = writev(fd, vectors, Int32(vectors.count))
            if n > 0 {
                offset += n
            } else if n < 0, errno == EINTR {
                continue
            } else {
                return n < 0 ? errno : EIO
            }
        }
        return 0
    }
}
