import ImageKernel

/// Downscales interleaved 8-bit pixels by area averaging: each output pixel is the mean of the
/// source area it covers, with fractional edges weighted. Alias-free at any factor.
///
/// It takes source rows in order, a strip at a time, and keeps only the few rows the next output
/// row still needs (a ring of horizontally shrunk rows), so a decoder can feed it rows as libjpeg
/// produces them and the DCT output never exists whole. The loops are flat pointer loops
/// specialised for 3 and 1 channels: for a 2× or larger reduction it costs a small fraction of the
/// decode that feeds it.
/// Used by one task at a time.
final class AreaResampler {
    let sourceWidth: Int
    let sourceHeight: Int
    let channels: Int
    let target: PixelSize
    private let columns: AreaSpans
    private let rows: AreaSpans
    private let rowSamples: Int
    private let ringRows: Int
    /// The source rows the next output rows still need; source row `r` lives in slot `r % ringRows`.
    private let ring: UnsafeMutablePointer<UInt8>
    /// One vertically averaged row, full source width.
    private let column: UnsafeMutablePointer<Float>
    private var output: [UInt8]
    private var nextSourceRow = 0
    private var nextOutputRow = 0

    init(sourceWidth: Int, sourceHeight: Int, channels: Int, to target: PixelSize) {
        precondition(sourceWidth > 0 && sourceHeight > 0 && target.width > 0 && target.height > 0 && channels > 0)
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.channels = channels
        self.target = target
        columns = AreaSpans(from: sourceWidth, to: target.width)
        rows = AreaSpans(from: sourceHeight, to: target.height)
        rowSamples = sourceWidth * channels
        ringRows = rows.taps
        ring = .allocate(capacity: ringRows * rowSamples)
        column = .allocate(capacity: rowSamples)
        output = [UInt8](repeating: 0, count: target.width * channels * target.height)
    }

    deinit {
        ring.deallocate()
        column.deallocate()
    }

    /// Whether every source row has been consumed (and so every output row written).
    var isComplete: Bool { nextSourceRow == sourceHeight }

    /// Takes the next `count` source rows, `bytesPerRow` apart in `strip`.
    func consume(_ strip: UnsafeRawBufferPointer, rows count: Int, bytesPerRow: Int) {
        precondition(nextSourceRow + count <= sourceHeight && (count == 0 || strip.count >= (count - 1) * bytesPerRow + sourceWidth * channels))
        guard count > 0, let base = strip.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        for index in 0..<count {
            let row = nextSourceRow
            (ring + (row % ringRows) * rowSamples).update(from: base + index * bytesPerRow, count: rowSamples)
            nextSourceRow += 1
            while nextOutputRow < target.height && rows.last(nextOutputRow) <= row {
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

    /// One output row: the vertical pass first, over contiguous samples the compiler vectorises,
    /// then the horizontal pass on the one averaged row (so the gathering pass runs once per
    /// output row, not once per source row).
    private func emitRow(_ y: Int) {
        let (first, taps, rowSamples, ringRows, ring, column) = (rows.first[y], rows.taps, rowSamples, ringRows, ring, column)
        rows.weights.withUnsafeBufferPointer { weights in
            let w = weights.baseAddress! + y * taps
            let row0 = ring + (first % ringRows) * rowSamples
            let w0 = w[0]
            for i in 0..<rowSamples { column[i] = Float(row0[i]) * w0 }
            for k in 1..<max(1, taps) {
                let (wk, row) = (w[k], ring + ((first + k) % ringRows) * rowSamples)
                for i in 0..<rowSamples { column[i] += Float(row[i]) * wk }
            }
        }
        output.withUnsafeMutableBufferPointer { output in
            shrinkColumn(into: output.baseAddress! + y * target.width * channels)
        }
    }

    /// The horizontal pass over the averaged row. Tap by tap over the whole row, so each output
    /// sample's sum is a separate chain the CPU overlaps (one chain per pixel would wait on the
    /// add latency at every tap).
    private func shrinkColumn(into out: UnsafeMutablePointer<UInt8>) {
        let (taps, channels, width, source) = (columns.taps, channels, target.width, UnsafePointer(column))
        withUnsafeTemporaryAllocation(of: Float.self, capacity: width * channels) { sums in
            let sums = sums.baseAddress!
            columns.first.withUnsafeBufferPointer { first in
                columns.weights.withUnsafeBufferPointer { weights in
                    let weights = weights.baseAddress!
                    switch channels {
                    case 3:
                        for x in 0..<width {
                            let (p, w, s) = (source + first[x] &* 3, weights[x &* taps], sums + x &* 3)
                            s[0] = p[0] * w
                            s[1] = p[1] * w
                            s[2] = p[2] * w
                        }
                        for k in 1..<max(1, taps) {
                            for x in 0..<width {
                                let (p, w, s) = (source + (first[x] &+ k) &* 3, weights[x &* taps &+ k], sums + x &* 3)
                                s[0] += p[0] * w
                                s[1] += p[1] * w
                                s[2] += p[2] * w
                            }
                        }
                    default:
                        for i in 0..<width * channels { sums[i] = 0 }
                        for k in 0..<taps {
                            for x in 0..<width {
                                let (p, w) = (source + (first[x] + k) * channels, weights[x * taps + k])
                                for c in 0..<channels { sums[x * channels + c] += p[c] * w }
                            }
                        }
                    }
                }
            }
            // Adding 1.5 · 2^23 leaves the rounded value in the low mantissa bits: a conversion
            // without UInt8(_: Float)'s range traps, so the loop vectorises.
            for i in 0..<width &* channels { out[i] = UInt8(truncatingIfNeeded: (min(255, max(0, sums[i])) + 12_582_912).bitPattern) }
        }
    }
}
