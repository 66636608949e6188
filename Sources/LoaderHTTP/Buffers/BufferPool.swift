import Foundation
import ImageKernel

/// Recycles the memory of response bodies.
///
/// Bodies are handed to callers as `Data` that wraps pool memory without a copy; when the last
/// copy of that `Data` goes away (on any thread), its memory comes back here. Reused memory is
/// already mapped, so a busy loader stops paying a fresh allocation and its page faults for
/// every response. Sizes are rounded up to classes at most 1/8 apart (≤ 12.5 % slack), and the
/// pool keeps at most ``maxPooledBytes`` of idle memory.
final class BufferPool: Sendable {
    /// Idle memory the pool may keep.
    let maxPooledBytes: Int
    private let state = Locked(State())

    private struct State {
        var idle: [Int: [UnsafeMutableRawPointer]] = [:]
        var idleBytes = 0
    }

    init(maxPooledBytes: Int = 8 << 20) {
        self.maxPooledBytes = maxPooledBytes
    }

    deinit {
        state.withLock { state in
            for buffers in state.idle.values { for buffer in buffers { buffer.deallocate() } }
        }
    }

    /// The capacity actually handed out for a request of `size` bytes.
    static func sizeClass(for size: Int) -> Int {
        let size = max(size, 4096)
        let power = 1 << (Int.bitWidth - 1 - size.leadingZeroBitCount)  // highest power of two <= size
        let step = max(4096, power / 8)
        return (size + step - 1) / step * step
    }

    /// Memory for at least `size` bytes, and its capacity.
    func take(atLeast size: Int) -> (pointer: UnsafeMutableRawPointer, capacity: Int) {
        let capacity = Self.sizeClass(for: size)
        let reused: UnsafeMutableRawPointer? = state.withLock { state in
            guard let pointer = state.idle[capacity]?.popLast() else { return nil }
            state.idleBytes -= capacity
            return pointer
        }
        return (reused ?? .allocate(byteCount: capacity, alignment: 16), capacity)
    }

    /// Takes memory back (or frees it when the pool is full).
    func give(_ pointer: UnsafeMutableRawPointer, capacity: Int) {
        let kept = state.withLock { state in
            guard state.idleBytes + capacity <= maxPooledBytes else { return false }
            state.idle[capacity, default: []].append(pointer)
            state.idleBytes += capacity
            return true
        }
        if !kept { pointer.deallocate() }
    }
}
