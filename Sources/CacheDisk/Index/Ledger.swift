#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The total size of a cache directory, shared by every process that uses it.
///
/// A 32-byte file `.cachedisk-ledger` in the directory holds a magic number, the total size of the
/// entry files and a generation that every update increments. Updates take an exclusive `flock`
/// for one `pread` and one `pwrite`. Each process adds its own size changes in batches; a process
/// that sees the generation move by more than its own update knows another process changed the
/// directory, so its index may be missing entries and is rebuilt before it trims.
///
/// The total is an estimate that errs high: a process killed between a rename and its next
/// update, or files removed by hand, leave it off until the next rescan, which sets it from the
/// directory again.
final class Ledger: @unchecked Sendable {
    // `fd`, `device` and `inode` are set once in init; the file's contents are only touched under
    // `flock`, and callers serialise their own use with the cache's mutex.
    static let fileName = ".cachedisk-ledger"
    private static let magic: Int64 = 0x4B4C_4443_4B49_0001  // "IKCDLK" v1

    private let fd: Int32
    private let path: String
    private let device: UInt64
    private let inode: UInt64

    /// Opens or creates the ledger in `directory`; nil if it cannot be created (read-only or full).
    init?(directory: String) {
        path = directory + "/" + Self.fileName
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            close(fd)
            return nil
        }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        // Make sure the 32 bytes exist now, so a later update never has to allocate on a full disk.
        guard locked({ read() != nil || write(State(total: 0, generation: 0, initialized: false)) }) else {
            close(fd)
            return nil
        }
    }

    deinit { close(fd) }

    struct State: Equatable {
        var total: Int
        var generation: Int64
        /// False for a new (or foreign) file: its total means nothing until a scan sets it.
        var initialized: Bool
    }

    /// Adds `delta` to the total. Returns the state before and after.
    func add(_ delta: Int) -> (before: State, after: State)? {
        locked {
            guard let before = read() else { return nil }
            var after = before
            after.total = max(0, before.total + delta)
            after.generation &+= 1
            return write(after) ? (before, after) : nil
        }
    }

    /// Reads the state.
    func current() -> State? { locked { read() } }

    /// After a scan: the scanned total plus what other processes added while the scan ran
    /// (`othersSinceStart`, never less than zero, so the estimate errs high).
    func reset(scannedTotal: Int, startState: State?) -> State? {
        locked {
            let now = read()
            var othersDelta = 0
            if let now, let startState, now.initialized, startState.initialized {
                othersDelta = max(0, now.total - startState.total)
            }
            let next = State(
                total: scannedTotal + othersDelta, generation: (now?.generation ?? 0) &+ 1, initialized: true)
            return write(next) ? next : nil
        }
    }

    /// Whether the file at the ledger's path is still the one this object has open (the
    /// directory may have been deleted and recreated).
    var isCurrent: Bool {
        var st = stat()
        return stat(path, &st) == 0 && UInt64(st.st_dev) == device && UInt64(st.st_ino) == inode
    }

    private func locked<T>(_ body: () -> T) -> T {
        while flock(fd, LOCK_EX) != 0, errno == EINTR {}
        defer { flock(fd, LOCK_UN) }
        return body()
    }

    private func read() -> State? {
        var words = [Int64](repeating: 0, count: 4)
        let n = words.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 32, 0) }
        guard n == 32 else { return n == 0 ? nil : State(total: 0, generation: 0, initialized: false) }
        let magic = Int64(littleEndian: words[0])
        guard magic == Self.magic else { return State(total: 0, generation: 0, initialized: false) }
        return State(
            total: Int(Int64(littleEndian: words[1])), generation: Int64(littleEndian: words[2]), initialized: true)
    }

    private func write(_ state: State) -> Bool {
        let words: [Int64] = [
            (state.initialized ? Self.magic : 0).littleEndian, Int64(state.total).littleEndian,
            state.generation.littleEndian, 0,
        ]
        return words.withUnsafeBytes { pwrite(fd, $0.baseAddress, 32, 0) } == 32
    }
}
