import Foundation

/// A response body as it arrives: pool memory that grows by doubling and is handed over as
/// `Data` without a copy. Owned by one transfer on the driver thread.
struct BodyBuffer {
    private let pool: BufferPool
    private var pointer: UnsafeMutableRawPointer?
    private var capacity = 0
    /// Bytes received so far.
    private(set) var count = 0

    init(pool: BufferPool) { self.pool = pool }

    var isEmpty: Bool { count == 0 }

    /// Makes room for `size` bytes in total (e.g. the announced Content-Length).
    mutating func reserve(_ size: Int) {
        guard size > capacity else { return }
        let (newPointer, newCapacity) = pool.take(atLeast: size)
        if let pointer {
            newPointer.copyMemory(from: pointer, byteCount: count)
            pool.give(pointer, capacity: capacity)
        }
        pointer = newPointer
        capacity = newCapacity
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        if count + bytes.count > capacity { reserve(max(count + bytes.count, capacity * 2, 16 * 1024)) }
        (pointer! + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// A copy of the bytes so far (for a caller that joins mid-transfer).
    func copy() -> Data {
        guard let pointer else { return Data() }
        return Data(bytes: pointer, count: count)
    }

    /// Hands the bytes over as `Data`; its memory returns to the pool when the `Data` is gone.
    /// The buffer is empty afterwards.
    mutating func takeData() -> Data {
        guard let pointer, count > 0 else {
            release()
            return Data()
        }
        let (pool, capacity) = (self.pool, self.capacity)
        let data = Data(bytesNoCopy: pointer, count: count, deallocator: .custom { memory, _ in
            pool.give(memory, capacity: capacity)
        })
        self.pointer = nil
        self.capacity = 0
        self.count = 0
        return data
    }

    /// Gives the memory back unused (the transfer failed or was cancelled).
    mutating func release() {
        if let pointer { pool.give(pointer, capacity: capacity) }
        pointer = nil
        capacity = 0
        count = 0
    }
}
