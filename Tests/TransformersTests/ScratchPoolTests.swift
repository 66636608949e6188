import Foundation
import ImageKernel
import Testing
@testable import Transformers

/// The resize's scratch memory: blocks come back for reuse within the pool's limits, never to
/// two holders at once, and what a block held before does not change a resize's bytes.
@Suite("Scratch pool")
struct ScratchPoolTests {
    @Test func aGivenBackBlockServesTheNextRequestThatFits() {
        let pool = ScratchPool(blockLimit: 1 << 20, retainedLimit: 4 << 20)
        let small = pool.take(10_000), large = pool.take(200_000)
        #expect(small.capacity == ScratchPool.granule && large.capacity >= 200_000 && large.capacity % ScratchPool.granule == 0)
        pool.giveBack(large)
        pool.giveBack(small)
        #expect(pool.retainedBytes == small.capacity + large.capacity)
        // The smallest that fits: the small block for a small request, the large one for more.
        let again = pool.take(5_000)
        #expect(again.base == small.base)
        let reused = pool.take(100_000)
        #expect(reused.base == large.base)
        #expect(pool.retainedBytes == 0)
        // Nothing fits: a new block.
        let fresh = pool.take(300_000)
        #expect(fresh.base != reused.base && fresh.capacity >= 300_000)
        for block in [again, reused, fresh] { pool.giveBack(block) }
    }

    @Test func thePoolKeepsItsLimitsAndLetsTheOldestGo() {
        let pool = ScratchPool(blockLimit: 256 << 10, retainedLimit: 512 << 10)
        let blocks = (0..<4).map { _ in pool.take(200 << 10) }  // 208 KB each
        for block in blocks { pool.giveBack(block) }
        // Two fit in 512 KB: the last two returned stay.
        #expect(pool.retainedBytes == 2 * blocks[0].capacity)
        let first = pool.take(200 << 10), second = pool.take(200 << 10)
        #expect(Set([first.base, second.base]) == Set([blocks[2].base, blocks[3].base]))
        // Over the block limit: freed at once, never kept.
        pool.giveBack(pool.take(300 << 10))
        #expect(pool.retainedBytes == 0)
        pool.giveBack(first)
        pool.giveBack(second)
    }

    @Test func concurrentHoldersNeverShareABlock() async {
        let pool = ScratchPool(blockLimit: 1 << 20, retainedLimit: 2 << 20)
        let clashes = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var clashes = 0
                    for round in 0..<100 {
                        let count = 1_000 + (task * 7_919 + round * 104_729) % 120_000
                        let block = pool.take(count)
                        let mark = UInt8(truncatingIfNeeded: task &* 31 &+ round)
                        block.base.initialize(repeating: mark, count: count)
                        if (0..<count).contains(where: { block.base[$0] != mark }) { clashes += 1 }
                        pool.giveBack(block)
                    }
                    return clashes
                }
            }
            return await group.reduce(0, +)
        }
        #expect(clashes == 0)
        #expect(pool.retainedBytes <= pool.retainedLimit)
    }

    @Test func aResizesBytesDoNotDependOnWhatItsScratchHeld() throws {
        // Fill the shared pool with blocks of every size a 400x300 plane's resize takes, first of
        // zeros, then of 0xFF: both resizes must give the same bytes (the transposed path reads
        // its intermediates only where it wrote them).
        let source = try Image(width: 400, height: 300, pixelFormat: .gray8, pixels: referencePattern(width: 400, height: 300, channels: 1))
        let resize = ResizeTransformer(.fill, width: 300, height: 200)
        func resized(afterPoisoningWith byte: UInt8) throws -> [UInt8] {
            let blocks = (1...16).map { ScratchPool.shared.take($0 * ScratchPool.granule) }
            for block in blocks { block.base.initialize(repeating: byte, count: block.capacity) }
            blocks.forEach(ScratchPool.shared.giveBack)
            return try resize.transform(source).pixels
        }
        // Under the level lock: the transposed path (the one with scratch) needs the SIMD level.
        let (zeros, ones) = try SIMDLevelLock.held {
            #expect(SeparableFilter.takesTransposed(channels: 1, loadWidth: 400, planeRows: 300))
            return (try resized(afterPoisoningWith: 0), try resized(afterPoisoningWith: 0xFF))
        }
        #expect(zeros.count == 300 * 200)
        #expect(zeros == ones)
    }
}
