import ImageKernel

/// Downscales interleaved 8-bit pixels by area averaging: each output pixel is the mean of the
/// source area it covers, with fractional edges weighted. Alias-free at any factor.
///
/// It takes source rows in order, a strip at a time, straight from the decoder's strip buffer:
/// each source row is added, weighted, into the one or two output rows whose area it overlaps
/// (full-width `UInt16` 8.8 fixed-point accumulator rows, a small ring of them), and an output row is shrunk
/// horizontally as soon as its last source row is in. So the DCT output never exists whole and no
/// source row is copied.
///
/// All arithmetic is fixed-point integer: vertical weights (16-bit) sum to 2^16 per output row and
/// vertical sums keep 8 fractional bits; horizontal weights sum to 2^16 per output pixel, both computed once per image (``AreaSpans``). The vertical
/// pass is a flat multiply-add over contiguous samples the compiler vectorises; the horizontal
/// pass runs once per output row with loops specialised for the channel count and tap count.
/// Used by one task at a time.
final class AreaResampler {
    let sourceWidth: Int
    let sourceHeight: Int
    let channels: Int
    let target: PixelSize

    private static let verticalBits = 16
    /// Vertical sums are kept with 8 fractional bits (8.8 fixed point).
    private static let sumBits = 8
    private static let horizontalBits = 16

    private let rowSamples: Int
    /// Vertical windows: output row `y` sums source rows `rowLow[y]...rowHigh[y]`, with weight
    /// `rowWeights[y * rowTaps + r - rowFirst[y]]` for source row `r`.
    private let rowLow: UnsafeMutablePointer<Int>
    private let rowHigh: UnsafeMutablePointer<Int>
    private let rowFirst: UnsafeMutablePointer<Int>
    private let rowWeights: UnsafeMutablePointer<UInt16>
    private let rowTaps: Int
    /// Horizontal windows: output pixel `x` reads `columnTaps` pixels from sample
    /// `columnStart[x]`, weighted by `columnWeights[x * columnTaps + k]`.
    private let columnStart: UnsafeMutablePointer<Int>
    private let columnWeights: UnsafeMutablePointer<Int>
    private let columnTaps: Int
    /// Output rows in progress; output row `y` accumulates in slot `y % ringRows`.
    private let ringRows: Int
    private let accumulators: UnsafeMutablePointer<UInt16>
    private var output: [UInt8]
    private var nextSourceRow = 0
    private var nextOutputRow = 0

    init(sourceWidth: Int, sourceHeight: Int, channels: Int, to target: PixelSize) {
        precondition(sourceWidth > 0 && sourceHeight > 0 && target.width > 0 && target.height > 0 && channels > 0)
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.channels = channels
        self.target = target
        rowSamples = sourceWidth * channels

        let rows = AreaSpans(from: sourceHeight, to: target.height, unit: 1 << Self.verticalBits)
        rowTaps = rows.taps
        rowLow = .allocate(capacity: target.height)
        rowLow.initialize(from: rows.low, count: target.height)
        rowHigh = .allocate(capacity: target.height)
        rowHigh.initialize(from: rows.high, count: target.height)
        rowFirst = .allocate(capacity: target.height)
        rowFirst.initialize(from: rows.first, count: target.height)
        rowWeights = .allocate(capacity: rows.weights.count)
        for (i, w) in rows.weights.enumerated() { rowWeights[i] = UInt16(min(w, 0xFFFF)) }

        let columns = AreaSpans(from: sourceWidth, to: target.width, unit: 1 << Self.horizontalBits)
        columnTaps = columns.taps
        columnStart = .allocate(capacity: target.width)
        for (x, first) in columns.first.enumerated() { columnStart[x] = first * channels }
        columnWeights = .allocate(capacity: columns.weights.count)
        for (i, w) in columns.weights.enumerated() { columnWeights[i] = Int(w) }

        // The most output rows any one source row belongs to: the rows open at once.
        var open = [Int](repeating: 0, count: sourceHeight + 1)
        for y in 0..<target.height {
            open[rows.low[y]] += 1
            open[rows.high[y] + 1] -= 1
        }
        var running = 0
        var most = 1
        for r in 0..<sourceHeight {
            running += open[r]
            most = max(most, running)
        }
        ringRows = most
        accumulators = .allocate(capacity: ringRows * rowSamples)
        let count = target.width * channels * target.height
        // Uninitialised: every output row is written before `finish` hands the bytes out.
        output = [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    }

    deinit {
        rowLow.deallocate()
        rowHigh.deallocate()
        rowFirst.deallocate()
        rowWeights.deallocate()
        columnStart.deallocate()
        columnWeights.deallocate()
        accumulators.deallocate()
    }

    /// Whether every source row has been consumed (and so every output row written).
    var isComplete: Bool { nextSourceRow == sourceHeight }

    /// Takes the next `count` source rows, `bytesPerRow` apart in `strip`.
    func consume(_ strip: UnsafeRawBufferPointer, rows count: Int, bytesPerRow: Int) {
        precondition(nextSourceRow + count <= sourceHeight && (count == 0 || strip.count >= (count - 1) * bytesPerRow + rowSamples))
        guard count > 0, let base = strip.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let (height, samples, ringRows, accumulators) = (target.height, rowSamples, ringRows, accumulators)
        let (rowLow, rowHigh, rowFirst, rowWeights, rowTaps) = (rowLow, rowHigh, rowFirst, rowWeights, rowTaps)
        for index in 0..<count {
            let r = nextSourceRow
            let source = base + index &* bytesPerRow
            var y = nextOutputRow
            while y < height && rowLow[y] <= r {
                let weight = UInt32(rowWeights[y &* rowTaps &+ r &- rowFirst[y]])
                let sums = accumulators + (y % ringRows) &* samples
                // (sample · 2^8 · weight) >> 16: the sample's share in 8.8 fixed point. (Meant to
                // become SSE2's pmulhuw; LLVM still emits pmuludq and shuffles here.)
                if r == rowLow[y] {
                    for i in 0..<samples { sums[i] = UInt16(truncatingIfNeeded: (UInt32(UInt16(source[i]) &<< 8) &* weight) &>> 16) }
                } else {
                    for i in 0..<samples { sums[i] &+= UInt16(truncatingIfNeeded: (UInt32(UInt16(source[i]) &<< 8) &* weight) &>> 16) }
                }
                y += 1
            }
            nextSourceRow = r + 1
            while nextOutputRow < height && rowHigh[nextOutputRow] <= r {
                emitRow(nextOutputRow)
                nextOutputRow += 1
            }
        }
    }

    /// The `target.width × target.height × channels` bytes, tightly packed, once every row is in.
    func finish() -> [UInt8] {
        precondition(isComplete, "AreaResampler finished after \(nextSourceRow) of \(sourceHeight) rows")
        defer { output = [] }
        return output
    }

    /// Downscales a whole image in one call.
    static func downscale(
        _ source: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int, channels: Int,
        to target: PixelSize
    ) -> [UInt8] {
        let resampler = AreaResampler(sourceWidth: width, sourceHeight: height, channels: channels, to: target)
        resampler.consume(source, rows: height, bytesPerRow: bytesPerRow)
        return resampler.finish()
    }

    /// Output row `y`, whose vertical sums are complete: the horizontal pass.
    private func emitRow(_ y: Int) {
        let sums = UnsafePointer(accumulators + (y % ringRows) * rowSamples)
        let (width, channels, taps, start, weights) = (target.width, channels, columnTaps, UnsafePointer(columnStart), UnsafePointer(columnWeights))
        output.withUnsafeMutableBufferPointer { output in
            let out = output.baseAddress! + y * width * channels
            // Literal channel and tap counts let each call unroll its inner loops completely.
            switch (channels, taps) {
            case (3, 1): Self.shrink(sums, into: out, width: width, start: start, weights: weights, channels: 3, taps: 1)
            case (3, 2): Self.shrink(sums, into: out, width: width, start: start, weights: weights, channels: 3, taps: 2)
            case (3, 3): Self.shrink(sums, into: out, width: width, start: start, weights: weights, channels: 3, taps: 3)
            case (3, 4): Self.shrink(sums, into: out, width: width, start: start, weights: weights, channels: 3, taps: 4)
            case (3, _): Self.shrink(sums, into: out, width: width, start: start, weights: weights, channels: 3, taps: taps)
            case (1, 1): Self.shrink(sums, into: out, width: width, start: start, weights: weights, channels: 1, taps: 1)
            case (1, 2): Self.shrink(sums, into: out, width: width, start: start, weights: weights, channels: 1, taps: 2)
            case (1, 3): Self.shrink(sums, into: out, width: width, start: start, weights: weights, channels: 1, taps: 3)
            case (1, 4): Self.shrink(sums, into: out, width: width, start: start, weights: weights, channels: 1, taps: 4)
            case (1, _): Self.shrink(sums, into: out, width: width, start: start, weights: weights, channels: 1, taps: taps)
            case (2, _): Self.shrink(sums, into: out, width: width, start: start, weights: weights, channels: 2, taps: taps)
            case (4, 2): Self.shrink(sums, into: out, width: width, start: start, weights: weights, channels: 4, taps: 2)
            case (4, 3): Self.shrink(sums, into: out, width: width, start: start, weights: weights, channels: 4, taps: 3)
            case (4, _): Self.shrink(sums, into: out, width: width, start: start, weights: weights, channels: 4, taps: taps)
            default: Self.shrink(sums, into: out, width: width, start: start, weights: weights, channels: channels, taps: taps)
            }
        }
    }

    /// One output row from one row of vertical sums. Each window's weights sum to 2^16 and each
    /// vertical sum is at most 255 · 2^8, so the 64-bit total needs no clamp: it rounds to 0...255.
    @inline(__always)
    private static func shrink(
        _ sums: UnsafePointer<UInt16>, into out: UnsafeMutablePointer<UInt8>, width: Int,
        start: UnsafePointer<Int>, weights: UnsafePointer<Int>, channels: Int, taps: Int
    ) {
        let shift = sumBits + horizontalBits
        let half = 1 << (shift - 1)
        for x in 0..<width {
            let p = sums + start[x]
            let w = weights + x &* taps
            let o = out + x &* channels
            for c in 0..<channels {
                var total = half
                for k in 0..<taps { total &+= Int(p[k &* channels &+ c]) &* w[k] }
                o[c] = UInt8(truncatingIfNeeded: total &>> shift)
            }
        }
    }
}
