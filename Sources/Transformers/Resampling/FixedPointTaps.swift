import CTransformKernels

/// ``FilterWeights`` in 16-bit fixed point for the 8-bit kernels of `CTransformKernels`.
///
/// The precision is Pillow-SIMD's choice: as many fractional bits as keep the largest
/// coefficient within 15 bits (at most 22, and never so many that a sum of 8-bit samples could
/// overflow 32 bits). Each output's coefficients are zero-padded to a multiple of four, and
/// outputs that share weights in ``FilterWeights`` (a Gaussian's interior) share them here.
final class FixedPointTaps: @unchecked Sendable {
    let outputCount: Int
    /// The largest tap count of any output.
    let taps: Int
    let precision: Int32
    private let starts: UnsafeMutablePointer<Int32>
    private let counts: UnsafeMutablePointer<Int32>
    private let offsets: UnsafeMutablePointer<Int32>
    private let coefficients: UnsafeMutablePointer<Int16>
    /// The C view of the arrays above; immutable after `init`, so threads may share it.
    private let table: UnsafeMutablePointer<ik_taps>

    /// The taps of `weights`, with input positions counted from `origin`.
    init(_ weights: FilterWeights, origin: Int = 0) {
        let n = weights.outputCount
        outputCount = n
        taps = weights.taps
        var largest: Float = 0, largestSum: Float = 0
        for i in 0..<n {
            var sum: Float = 0
            for k in 0..<weights.counts[i] {
                let w = abs(weights.weights[weights.offsets[i] + k])
                largest = max(largest, w)
                sum += w
            }
            largestSum = max(largestSum, sum)
        }
        var bits: Int32 = 1
        while bits < 22 {
            let next = Double(largest) * Double(1 << (bits + 1))
            let worstSum = 255 * Double(largestSum) * Double(1 << (bits + 1))
            if next + 0.5 >= Double(1 << 15) || worstSum >= Double(Int32.max / 2) { break }
            bits += 1
        }
        precision = bits
        // Lay the coefficients out padded, one block per distinct `offsets` entry.
        // Where each source block went (-1: not yet), indexed by its offset in `weights`.
        var blockOf = [Int32](repeating: -1, count: max(1, weights.weights.count))
        var layout: [(source: Int, count: Int, at: Int)] = []
        var total = 0
        starts = .allocate(capacity: max(1, n))
        counts = .allocate(capacity: max(1, n))
        offsets = .allocate(capacity: max(1, n))
        for i in 0..<n {
            let count = weights.counts[i]
            let at = blockOf[weights.offsets[i]]
            if at >= 0 {
                offsets[i] = at
            } else {
                blockOf[weights.offsets[i]] = Int32(total)
                offsets[i] = Int32(total)
                layout.append((weights.offsets[i], count, total))
                total += (count + 3) & ~3
            }
            starts[i] = Int32(weights.starts[i] - origin)
            counts[i] = Int32(count)
        }
        // 16 zeros past the last block: the one-channel kernel reads 16 coefficients per output.
        coefficients = .allocate(capacity: total + 16)
        coefficients.initialize(repeating: 0, count: total + 16)
        let scale = Float(1 << bits)
        for block in layout {
            for k in 0..<block.count {
                coefficients[block.at + k] = Int16((weights.weights[block.source + k] * scale).rounded())
            }
        }
        table = .allocate(capacity: 1)
        table.initialize(to: ik_taps(
            count: Int32(n), starts: starts, counts: counts, offsets: offsets, coefficients: coefficients, precision: bits))
    }

    deinit {
        starts.deallocate()
        counts.deallocate()
        offsets.deallocate()
        coefficients.deallocate()
        table.deallocate()
    }

    /// The table for ``ik_convolve_rows_u8``.
    var cTable: UnsafePointer<ik_taps> { UnsafePointer(table) }

    /// Output `i`'s first input position (from the origin), tap count and coefficients.
    func start(_ i: Int) -> Int { Int(starts[i]) }
    func count(_ i: Int) -> Int { Int(counts[i]) }
    func coefficients(_ i: Int) -> UnsafePointer<Int16> { UnsafePointer(coefficients + Int(offsets[i])) }
    /// Where output `i`'s coefficients start (outputs with equal weights share them).
    func offset(_ i: Int) -> Int { Int(offsets[i]) }
}
