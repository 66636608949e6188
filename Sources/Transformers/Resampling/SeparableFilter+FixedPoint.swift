import CTransformKernels
import ImageKernel
#if canImport(Glibc)
import Glibc
#endif

/// The 8-bit path of ``SeparableFilter``: both passes in 16-bit fixed point over 8-bit samples,
/// with an 8-bit intermediate between them (as Pillow and libvips do), in the C kernels of
/// `CTransformKernels` (AVX-512 VNNI or AVX2 when the CPU has them, portable C otherwise).
/// Straight alpha is premultiplied on load, as Pillow's `RGBa`, and divided back on store.
extension SeparableFilter {
    /// Whether `image` can take the fixed-point path.
    static func takesFixedPoint(_ image: Image, outputFormat: PixelFormat) -> Bool {
        image.pixelFormat.bitsPerComponent == 8 && outputFormat == image.pixelFormat
    }

    /// Fixed-point kernel operations per unit of ``Parallel/minimumWork`` (which counts float
    /// working-pixel operations): measured with bench-resize, 400x300 → fill 300x200 gains nothing
    /// from a second thread (0.131 against 0.136 ms) and 800x600 → 600x400 gains 1.6x.
    static let fixedPointOpsPerWorkUnit = 8

    /// The largest window of ``FixedPointPlan``'s vertical calls for these weights.
    static func windowCapacity(_ weights: FilterWeights) -> Int {
        var most = max(1, weights.taps)
        for y in 0..<max(0, weights.outputCount - 1) {
            let end = max(weights.starts[y] + weights.counts[y], weights.starts[y + 1] + weights.counts[y + 1])
            most = max(most, min(end - weights.starts[y], 2 * weights.taps))
        }
        return most
    }

    /// Filters an 8-bit `image` (see ``takesFixedPoint(_:outputFormat:)``).
    func applyFixedPoint(to image: Image, premultiplying: Bool) throws(ImageKernelError) -> Image {
        let format = image.pixelFormat, channels = format.bytesPerPixel
        let layout = try fixedPointLayout(channels: channels)
        let outWidth = layout.outWidth, outHeight = layout.outHeight
        let firstColumn = layout.firstColumn, loadWidth = layout.loadWidth, firstRow = layout.firstRow
        let endRow = layout.endRow, planeRows = layout.planeRows
        let takesVerticalFirst = layout.verticalFirst, threads = layout.threads
        if Self.takesTransposed(channels: channels, loadWidth: loadWidth, planeRows: planeRows) {
            let pixels = applyTransposed(
                to: image, horizontal: horizontalAxis.fixedPoint(origin: firstColumn, paired: false).taps,
                vertical: verticalAxis.fixedPoint(origin: 0, paired: false).taps, firstColumn: firstColumn, loadWidth: loadWidth,
                firstRow: firstRow, planeRows: planeRows, verticalFirst: takesVerticalFirst, threads: threads)
            return try image.derived(width: outWidth, height: outHeight, format: format, pixels: pixels)
        }
        let horizontalForms = horizontalAxis.fixedPoint(origin: firstColumn, paired: channels >= 3)
        let plan = FixedPointPlan(
            image: image, horizontal: horizontalForms.taps, horizontalPairs: channels >= 3 ? horizontalForms.pairs : nil,
            vertical: verticalAxis.fixedPoint(origin: 0, paired: false).taps,
            channels: channels, firstColumn: firstColumn, loadWidth: loadWidth, outWidth: outWidth, endRow: endRow,
            windowCapacity: Self.windowCapacity(vertical), sourceBytes: image.pixels.count,
            premultiplies: premultiplying && format.hasAlpha && !format.isPremultiplied)
        let rowBytes = outWidth * channels
        let pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * outHeight) { buffer, initialized in
            let out = buffer.baseAddress!
            LargeBuffer.adviseHugePages(UnsafeMutableRawPointer(out), bytes: rowBytes * outHeight)
            image.pixels.withUnsafeBytes { source in
                let base = source.baseAddress!.assumingMemoryBound(to: UInt8.self)
                if takesVerticalFirst {
                    Parallel.forEachSlice(rows: outHeight, threads: threads) { rows in
                        plan.verticalFirst(rows: rows, source: base, into: out)
                    }
                } else {
                    Parallel.forEachSlice(rows: outHeight, threads: threads, slicesPerThread: 1) { rows in
                        plan.horizontalFirst(rows: rows, source: base, into: out)
                    }
                }
            }
            initialized = rowBytes * outHeight
        }
        return try image.derived(width: outWidth, height: outHeight, format: format, pixels: pixels)
    }
}

/// Where the fixed-point passes read and in which order they run: what the whole-image path
/// and the banded one (``BandedPlaneFilter``) both follow, so they make the same bytes.
struct FixedPointLayout {
    let outWidth: Int, outHeight: Int
    /// The columns and rows any output reads: `firstColumn ..< firstColumn + loadWidth`,
    /// `firstRow ..< endRow` (`planeRows` of them).
    let firstColumn: Int, loadWidth: Int
    let firstRow: Int, endRow: Int, planeRows: Int
    let verticalFirst: Bool
    let threads: Int
}

extension SeparableFilter {
    /// The first sample any output of `weights` reads and one past the last (0, 0 for none), in
    /// one pass without the intermediate arrays `zip`/`map` would make (per plane and render).
    static func reach(of weights: FilterWeights) -> (first: Int, end: Int) {
        guard weights.outputCount > 0 else { return (0, 0) }
        var first = Int.max, end = Int.min
        weights.starts.withUnsafeBufferPointer { starts in
            weights.counts.withUnsafeBufferPointer { counts in
                for i in 0..<min(starts.count, counts.count) {
                    first = min(first, starts[i])
                    end = max(end, starts[i] + counts[i])
                }
            }
        }
        return first <= end ? (first, end) : (0, 0)
    }

    /// The layout of the fixed-point passes over `channels`-byte pixels.
    /// - Throws: ``ImageKernelError`` when an intermediate or the output is over the limits.
    func fixedPointLayout(channels: Int) throws(ImageKernelError) -> FixedPointLayout {
        let outWidth = horizontal.outputCount, outHeight = vertical.outputCount
        let (firstColumn, endColumn) = Self.reach(of: horizontal)
        let (firstRow, endRow) = Self.reach(of: vertical)
        let loadWidth = endColumn - firstColumn, planeRows = endRow - firstRow
        try TransformLimits.check(width: max(loadWidth, 1), height: max(outHeight, 1), what: "intermediate of the filter")
        try TransformLimits.check(width: outWidth, height: outHeight, what: "output")
        // Cost in quarter operations: the vertical kernel spends about 1/4 per sample and tap,
        // the horizontal one about 5/4 per pixel and tap (see ConvolveKernels.h). The order only
        // changes the result where a pass can overshoot and its 8-bit intermediate is clamped
        // (negative lobes: bicubic, Lanczos); then it is Pillow 13's, as seen on the reference
        // cases: vertical first only when that leaves the clearly smaller intermediate.
        let verticalFirst = outHeight * loadWidth * channels * vertical.taps + 5 * outHeight * outWidth * horizontal.taps
        let horizontalFirst = 5 * planeRows * outWidth * horizontal.taps + outHeight * outWidth * channels * vertical.taps
        let overshoots = horizontal.hasNegativeWeights || vertical.hasNegativeWeights
        let pillowOrder = 5 * loadWidth * outHeight < 4 * outWidth * planeRows
        let takesVerticalFirst = overshoots ? pillowOrder : verticalFirst <= horizontalFirst
        // Quarter operations to operations, then to the float operations `minimumWork` is
        // tuned for: the SIMD fixed-point kernels do about 8 per float one. A 400x300 →
        // 300x200 fill (0.13 ms) is then one thread: split, it took as long plus a hand-off.
        let work = min(verticalFirst, horizontalFirst) / 4 / Self.fixedPointOpsPerWorkUnit
        return FixedPointLayout(
            outWidth: outWidth, outHeight: outHeight, firstColumn: firstColumn, loadWidth: loadWidth,
            firstRow: firstRow, endRow: endRow, planeRows: planeRows, verticalFirst: takesVerticalFirst,
            threads: Parallel.threads(rows: outHeight, work: work, limit: threadLimit))
    }
}

/// What both orders of the fixed-point passes share; each call works on its own output rows.
private struct FixedPointPlan: @unchecked Sendable {
    let image: Image
    let horizontal: FixedPointTaps
    /// The horizontal taps in pairs, where that is cheaper (see ``PairedTaps``).
    let horizontalPairs: PairedTaps?
    let vertical: FixedPointTaps
    let channels: Int
    let firstColumn: Int
    let loadWidth: Int
    let outWidth: Int
    /// One past the last source row any output uses.
    let endRow: Int
    /// The most source rows one vertical call reads: one output's taps, or two neighbours' union.
    let windowCapacity: Int
    /// The size of the image's buffer: rows that end at least `IK_ROW_PADDING` bytes before it are
    /// read in place by the horizontal pass.
    let sourceBytes: Int
    let premultiplies: Bool
    /// Rows per horizontal call.
    static let batch = 4

    var loadBytes: Int { loadWidth * channels }
    var rowBytes: Int { outWidth * channels }

    /// Source row `p` from `firstColumn` on.
    @inline(__always)
    func sourceRow(_ p: Int, _ source: UnsafePointer<UInt8>) -> UnsafePointer<UInt8> {
        source + p * image.bytesPerRow + firstColumn * channels
    }

    /// Output rows `rows`, each by a vertical pass over the source into a row of `loadWidth`
    /// pixels, then a horizontal pass over those rows, up to ``batch`` at a time.
    func verticalFirst(rows: Range<Int>, source: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) {
        let batch = Self.batch, buffers = PassBuffers(plan: self)
        let (temp, padded, ins, outs) = (buffers.rows, buffers.padded, buffers.ins, buffers.outs)
        // The pointers above belong to `buffers`: keep it alive until the slice is done.
        defer { withExtendedLifetime(buffers) {} }
        // With premultiplication, source rows pass through a ring of slots, each premultiplied
        // once per slice; rows only move down.
        let ring = premultiplies ? RowSlots(count: windowCapacity, bytes: loadBytes) : nil
        defer { withExtendedLifetime(ring) {} }
        var y = rows.lowerBound
        while y < rows.upperBound {
            let n = min(batch, rows.upperBound - y)
            var j = 0
            while j < n {
                let done = verticalRows(y + j, pairable: j + 1 < n, buffers, temp + j * padded, temp + min(j + 1, batch - 1) * padded, loadBytes) { p in
                    guard let ring else { return sourceRow(p, source) }
                    return ring.row(p) { slot in ik_premultiply_u8(sourceRow(p, source), slot, loadWidth, Int32(channels)) }
                }
                for k in j..<(j + done) {
                    ins[k] = UnsafePointer(temp + k * padded)
                    outs[k] = out + (y + k) * rowBytes
                }
                j += done
            }
            horizontalPass(ins, outs, n)
            finishRows(out + y * rowBytes, n)
            y += n
        }
    }

    /// Output rows `rows` by horizontal passes over the source rows they need (up to ``batch``
    /// at a time), kept in a ring, then a vertical pass from the ring into each output row.
    func horizontalFirst(rows: Range<Int>, source: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) {
        let batch = Self.batch, buffers = PassBuffers(plan: self)
        let (scratch, padded, ins, outs) = (buffers.rows, buffers.padded, buffers.ins, buffers.outs)
        // The pointers above belong to `buffers`: keep it alive until the slice is done.
        defer { withExtendedLifetime(buffers) {} }
        let ring = RowSlots(count: windowCapacity + batch, bytes: rowBytes)
        defer { withExtendedLifetime(ring) {} }
        var next = 0, y = rows.lowerBound
        while y < rows.upperBound {
            let pairable = y + 1 < rows.upperBound
            let start = vertical.start(y)
            // The rows of this output and, when it may pair with it, the next one.
            let pairEnd = pairable ? vertical.start(y + 1) + vertical.count(y + 1) : 0
            let end = max(start + vertical.count(y), pairEnd - start <= windowCapacity ? pairEnd : 0)
            next = max(next, start)
            while next < end {
                // Up to `batch` rows ahead (never past the last row any output uses): the ring
                // keeps `windowCapacity + batch` rows, so none of this window is overwritten.
                let n = min(batch, endRow - next)
                for k in 0..<n {
                    let p = next + k, row = sourceRow(p, source), slot = scratch + k * padded
                    if premultiplies {
                        ik_premultiply_u8(row, slot, loadWidth, Int32(channels))
                        ins[k] = UnsafePointer(slot)
                    } else if p * image.bytesPerRow + (firstColumn + loadWidth) * channels + Int(IK_ROW_PADDING) <= sourceBytes {
                        ins[k] = row
                    } else {
                        slot.update(from: row, count: loadBytes)
                        ins[k] = UnsafePointer(slot)
                    }
                    outs[k] = ring.slot(p)
                }
                horizontalPass(ins, outs, n)
                next += n
            }
            let target = out + y * rowBytes
            let done = verticalRows(y, pairable: pairable, buffers, target, target + (pairable ? rowBytes : 0), rowBytes) {
                UnsafePointer(ring.slot($0))
            }
            finishRows(target, done)
            y += done
        }
    }

    /// The vertical pass for output row `y` into `out0`, and for `y + 1` into `out1` as well when
    /// `pairable` and the two windows overlap enough: then both run over the union of their rows
    /// (coefficients zero-padded to it), so each row is loaded and widened once for both. Returns
    /// the number of rows done. `row` gives source row `p` as the pass reads it.
    @inline(__always)
    private func verticalRows(
        _ y: Int, pairable: Bool, _ buffers: PassBuffers, _ out0: UnsafeMutablePointer<UInt8>, _ out1: UnsafeMutablePointer<UInt8>,
        _ bytes: Int, row: (Int) -> UnsafePointer<UInt8>
    ) -> Int {
        let start = vertical.start(y), count = vertical.count(y), window = buffers.window
        if pairable {
            let start1 = vertical.start(y + 1), count1 = vertical.count(y + 1)
            let union = max(start + count, start1 + count1) - start
            // Two outputs over the union cost about as much as one over 4/3 of it (the shuffles
            // are shared, the multiplies are not).
            if start1 >= start, 2 * union <= 3 * count, union <= windowCapacity {
                for k in 0..<union { window[k] = row(start + k) }
                let k0 = buffers.coefficients, k1 = k0 + union
                k0.update(repeating: 0, count: 2 * union)
                k0.update(from: vertical.coefficients(y), count: count)
                (k1 + (start1 - start)).update(from: vertical.coefficients(y + 1), count: count1)
                ik_convolve_columns2_u8(window, Int32(union), k0, k1, vertical.precision, out0, out1, bytes)
                return 2
            }
        }
        for k in 0..<count { window[k] = row(start + k) }
        ik_convolve_columns_u8(window, Int32(count), vertical.coefficients(y), vertical.precision, out0, bytes)
        return 1
    }

    /// The horizontal pass over `n` rows, in pairs of outputs where that is cheaper.
    @inline(__always)
    private func horizontalPass(_ ins: UnsafePointer<UnsafePointer<UInt8>?>, _ outs: UnsafePointer<UnsafeMutablePointer<UInt8>?>, _ n: Int) {
        if let horizontalPairs {
            ik_convolve_rows_paired_u8(ins, outs, Int32(n), Int32(channels), horizontalPairs.cTable)
        } else {
            ik_convolve_rows_u8(ins, outs, Int32(n), Int32(channels), horizontal.cTable)
        }
    }

    @inline(__always)
    private func finishRows(_ first: UnsafeMutablePointer<UInt8>, _ count: Int) {
        guard premultiplies else { return }
        ik_unpremultiply_u8(first, outWidth * count, Int32(channels))
    }
}

/// The working memory of one slice of a ``FixedPointPlan``: ``FixedPointPlan/batch`` padded rows
/// of `loadWidth` pixels (inputs of the horizontal pass), the vertical window, and the row
/// pointers of one horizontal call. Used by one thread only.
private final class PassBuffers {
    let padded: Int
    let rows: UnsafeMutablePointer<UInt8>
    let window: UnsafeMutablePointer<UnsafePointer<UInt8>?>
    /// Two outputs' vertical coefficients, padded to their union.
    let coefficients: UnsafeMutablePointer<Int16>
    let ins: UnsafeMutablePointer<UnsafePointer<UInt8>?>
    let outs: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>

    init(plan: FixedPointPlan) {
        let batch = FixedPointPlan.batch
        padded = plan.loadBytes + Int(IK_ROW_PADDING)
        rows = .allocate(capacity: batch * padded)
        rows.initialize(repeating: 0, count: batch * padded)
        window = .allocate(capacity: plan.windowCapacity)
        coefficients = .allocate(capacity: 2 * plan.windowCapacity)
        ins = .allocate(capacity: batch)
        outs = .allocate(capacity: batch)
    }

    deinit {
        rows.deallocate()
        window.deallocate()
        coefficients.deallocate()
        ins.deallocate()
        outs.deallocate()
    }
}

/// `count` row buffers where row `p` lives in slot `p % count`; used by one thread only.
private final class RowSlots {
    let count: Int
    let bytes: Int
    private let storage: UnsafeMutablePointer<UInt8>
    /// The row each slot holds (-1: none).
    private var holds: [Int]

    init(count: Int, bytes: Int) {
        self.count = max(1, count)
        self.bytes = bytes
        storage = .allocate(capacity: self.count * max(1, bytes))
        holds = [Int](repeating: -1, count: self.count)
    }

    deinit { storage.deallocate() }

    func slot(_ p: Int) -> UnsafeMutablePointer<UInt8> { storage + (p % count) * bytes }

    /// Row `p`, filled by `fill` unless its slot already holds it.
    @inline(__always)
    func row(_ p: Int, fill: (UnsafeMutablePointer<UInt8>) -> Void) -> UnsafePointer<UInt8> {
        let s = p % count
        if holds[s] != p {
            fill(storage + s * bytes)
            holds[s] = p
        }
        return UnsafePointer(storage + s * bytes)
    }
}

/// Fresh output buffers of many megabytes.
enum LargeBuffer {
    /// Asks Linux to back `bytes` at `start` with transparent huge pages where it can: a fresh
    /// 36 MB output otherwise takes 9,000 page faults, which cost more than the filter (perf).
    static func adviseHugePages(_ start: UnsafeMutableRawPointer, bytes: Int) {
        #if os(Linux)
        let huge = 2 << 20
        guard bytes >= 4 * huge else { return }
        let begin = (Int(bitPattern: start) + huge - 1) & ~(huge - 1)
        let end = (Int(bitPattern: start) + bytes) & ~(huge - 1)
        guard end > begin, let aligned = UnsafeMutableRawPointer(bitPattern: begin) else { return }
        _ = madvise(aligned, end - begin, MADV_HUGEPAGE)
        #endif
    }
}
