import ImageKernel

/// Memory for the resize's intermediate planes, kept between calls.
///
/// The transposed and banded fixed-point paths need three intermediates per plane (a 400x300
/// source: 145, 109 and 109 KB for luma) that live for one call. Fresh from the allocator, their
/// pages were often new (the heap grows around what the caller's caches keep), and the kernel
/// zeroed each in a page fault on the first write: in the image proxy's cold benchmark on
/// tcmalloc, one request at a time, four in five of its page faults (25 per request, 12 with
/// this pool).
///
/// Blocks up to ``blockLimit`` go back to the pool after use, at most ``retainedLimit`` bytes
/// in all (the oldest returned go first); bigger ones are freed at once. A block's bytes are
/// whatever its last user left: callers write every byte they read, as with `malloc`.
final class ScratchPool: Sendable {
    /// A block of `capacity` bytes at `base`, owned by whoever took it until it is given back.
    struct Block: @unchecked Sendable {
        let base: UnsafeMutablePointer<UInt8>
        let capacity: Int
    }

    /// The pool the resize paths use: blocks up to 4 MB (a 1200x1200 plane's intermediate),
    /// 16 MB in all.
    static let shared = ScratchPool(blockLimit: 4 << 20, retainedLimit: 16 << 20)

    /// Sizes are rounded up to this, so one block serves sources of nearly the same size.
    static let granule = 16 << 10

    /// The largest block the pool keeps.
    let blockLimit: Int
    /// The most bytes the pool keeps in all.
    let retainedLimit: Int
    /// Blocks waiting for reuse, the oldest returned first.
    private let blocks = Locked<[Block]>([])

    init(blockLimit: Int, retainedLimit: Int) {
        self.blockLimit = blockLimit
        self.retainedLimit = retainedLimit
    }

    deinit {
        for block in blocks.withLock({ $0 }) { block.base.deallocate() }
    }

    /// A block of at least `count` bytes: the smallest pooled one that fits, else a new one.
    func take(_ count: Int) -> Block {
        let count = max(count, 1)
        if count <= blockLimit, let reused = blocks.withLock({ blocks -> Block? in
            var best: Int?
            for i in blocks.indices where blocks[i].capacity >= count {
                if best.map({ blocks[i].capacity < blocks[$0].capacity }) ?? true { best = i }
            }
            return best.map { blocks.remove(at: $0) }
        }) {
            return reused
        }
        let capacity = count <= blockLimit ? (count + Self.granule - 1) / Self.granule * Self.granule : count
        return Block(base: .allocate(capacity: capacity), capacity: capacity)
    }

    /// Takes `block` back for reuse, or frees it (too big, or what the pool lets go to stay within
    /// ``retainedLimit``). `block` must not be used after.
    func giveBack(_ block: Block) {
        guard block.capacity <= blockLimit else {
            block.base.deallocate()
            return
        }
        let released = blocks.withLock { blocks -> [Block] in
            blocks.append(block)
            var held = blocks.reduce(0) { $0 + $1.capacity }
            var oldest = 0
            while held > retainedLimit {
                held -= blocks[oldest].capacity
                oldest += 1
            }
            let released = Array(blocks[..<oldest])
            blocks.removeFirst(oldest)
            return released
        }
        for block in released { block.base.deallocate() }
    }

    /// Bytes the pool holds now.
    var retainedBytes: Int { blocks.withLock { $0.reduce(0) { $0 + $1.capacity } } }
}
