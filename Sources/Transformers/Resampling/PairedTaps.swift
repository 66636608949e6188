import CTransformKernels

/// ``FixedPointTaps`` regrouped for `ik_convolve_rows_paired_u8`: outputs in pairs over the union
/// of their taps, so each group of source pixels is loaded and widened once for both.
///
/// The horizontal kernel is bound by its shuffles (six per four taps and four rows) more than by
/// its multiplies (four): a pair spends six shuffles and eight multiplies per four taps of its
/// union, about 4/3 of one output's cost, so pairing pays while the union stays under 1.5 times
/// one output's taps, as in blurs, enlargements and reductions by small factors.
final class PairedTaps: @unchecked Sendable {
    private let starts: UnsafeMutablePointer<Int32>
    private let counts: UnsafeMutablePointer<Int32>
    private let offsets: UnsafeMutablePointer<Int32>
    private let strides: UnsafeMutablePointer<Int32>
    private let coefficients: UnsafeMutablePointer<Int16>
    private let table: UnsafeMutablePointer<ik_pair_taps>

    /// The pairs of `single`, or nil when pairing would cost more than it saves.
    init?(_ single: FixedPointTaps) {
        let n = single.outputCount, pairCount = (n + 1) / 2
        guard n >= 2 else { return nil }
        func union(_ p: Int) -> (start: Int, count: Int) {
            let i0 = 2 * p, i1 = min(2 * p + 1, n - 1)
            let start = min(single.start(i0), single.start(i1))
            let end = max(single.start(i0) + single.count(i0), single.start(i1) + single.count(i1))
            return (start, end - start)
        }
        var singleCost = 0, pairCost = 0
        for i in 0..<n { singleCost += 3 * ((single.count(i) + 3) & ~3) }
        for p in 0..<pairCount { pairCost += 4 * ((union(p).count + 3) & ~3) }
        guard pairCost < singleCost else { return nil }
        starts = .allocate(capacity: pairCount)
        counts = .allocate(capacity: pairCount)
        offsets = .allocate(capacity: pairCount)
        strides = .allocate(capacity: pairCount)
        // Blocks of 2 * stride coefficients; a pair laid out exactly as the one before it (a
        // Gaussian's interior) shares its block.
        var blocks: [Int16] = []
        var previous: (key: [Int], at: Int)?
        for p in 0..<pairCount {
            let (start, count) = union(p), stride = (count + 3) & ~3
            let i0 = 2 * p, i1 = 2 * p + 1 < n ? 2 * p + 1 : -1
            let key = [single.offset(i0), single.start(i0) - start, i1 < 0 ? -1 : single.offset(i1), i1 < 0 ? 0 : single.start(i1) - start, count]
            starts[p] = Int32(start)
            counts[p] = Int32(count)
            strides[p] = Int32(stride)
            if let previous, previous.key == key {
                offsets[p] = Int32(previous.at)
                continue
            }
            let at = blocks.count
            blocks.append(contentsOf: repeatElement(0, count: 2 * stride))
            for (o, i) in [i0, i1].enumerated() where i >= 0 {
                let k = single.coefficients(i), shift = single.start(i) - start
                for j in 0..<single.count(i) { blocks[at + o * stride + shift + j] = k[j] }
            }
            offsets[p] = Int32(at)
            previous = (key, at)
        }
        let storage = UnsafeMutablePointer<Int16>.allocate(capacity: max(4, blocks.count))
        storage.initialize(repeating: 0, count: max(4, blocks.count))
        blocks.withUnsafeBufferPointer { storage.update(from: $0.baseAddress!, count: $0.count) }
        coefficients = storage
        table = .allocate(capacity: 1)
        table.initialize(to: ik_pair_taps(
            outputs: Int32(n), count: Int32(pairCount), starts: starts, counts: counts, offsets: offsets, strides: strides,
            coefficients: coefficients, precision: single.precision))
    }

    deinit {
        starts.deallocate()
        counts.deallocate()
        offsets.deallocate()
        strides.deallocate()
        coefficients.deallocate()
        table.deallocate()
    }

    /// The table for ``ik_convolve_rows_paired_u8``.
    var cTable: UnsafePointer<ik_pair_taps> { UnsafePointer(table) }
}
