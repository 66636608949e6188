import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The baselines: the same work done with bare system calls and no cache logic.
enum RawFiles {
    /// open, fstat, read into a fresh buffer, close: the least it takes to own a file's bytes.
    static func read(_ path: String) -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return 0 }
        let size = Int(st.st_size)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(size, 1), alignment: 16)
        defer { buffer.deallocate() }
        var total = 0
        while total < size {
            let n = Glibc.read(fd, buffer + total, size - total)
            if n <= 0 { break }
            total += n
        }
        return total
    }

    /// open(O_CREAT|O_EXCL) a temporary name, write, close, rename over the final name.
    static func writeAndRename(_ data: Data, directory: String, name: String) {
        let temporary = directory + "/.raw-" + String(UInt64.random(in: 0 ... .max), radix: 16)
        writeNew(data, path: temporary)
        guard rename(temporary, directory + "/" + name) == 0 else { fatalError("rename: errno \(errno)") }
    }

    /// Creates `directory/name` (which must not exist), writes, closes: a new file, no rename.
    static func writeNew(_ data: Data, directory: String, name: String) {
        writeNew(data, path: directory + "/" + name)
    }

    private static func writeNew(_ data: Data, path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { fatalError("open \(path): errno \(errno)") }
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                guard n > 0 else { fatalError("write: errno \(errno)") }
                offset += n
            }
        }
        close(fd)
    }
}
