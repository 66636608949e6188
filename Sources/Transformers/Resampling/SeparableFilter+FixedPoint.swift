import CTransformKernels
import ImageKernel
#if canImport(Glibc)
import Glibc
#endif

/// The 8-bit path of ``SeparableFilter``: both passes in 16-bit fixed point over 8-bit samples,
/// with an 8-bit intermediate between them (as Pillow and libvips do), in the C kernels of
/// `CTransformKernels` (AVX2 when the CPU has it). Straight alpha is premultiplied on load, as
/// Pillow's `RGBa`, and divided back on store.
extension SeparableFilter {
    /// Whether `image` can take the fixed-point path.
    static func takesFixedPoint(_ image: Image, outputFormat: PixelFormat) -> Bool {
        image.pixelFormat.bitsPerComponent == 8 && outputFormat == image.pixelFormat
    }

    /// Filters an 8-bit `image` (see ``takesFixedPoint(_:outputFormat:)``).
    func applyFixedPoint(to image: Image, premultiplying: Bool) throws(ImageKernelError) -> Image {
        let format = image.pixelFormat, channels = format.bytesPerPixel
        let outWidth = horizontal.outputCount, outHeight = vertical.outputCount
        let firstColumn = horizontal.starts.min() ?? 0
        let endColumn = zip(horizontal.starts, horizontal.counts).map { $0 + $1 }.max() ?? 0
        let firstRow = vertical.starts.min() ?? 0
        let endRow = zip(vertical.starts, vertical.counts).map { $0 + $1 }.max() ?? 0
        let loadWidth = endColumn - firstColumn, planeRows = endRow - firstRow
        try TransformLimits.check(width: max(loadWidth, 1), height: max(outHeight, 1), what: "intermediate of the filter")
        try TransformLimits.check(width: outWidth, height: outHeight, what: "output")
        let plan = FixedPointPlan(
            image: image, horizontal: FixedPointTaps(horizontal, origin: firstColumn), vertical: FixedPointTaps(vertical),
            channels: channels, firstColumn: firstColumn, loadWidth: loadWidth, outWidth: outWidth, endRow: endRow, sourceBytes: image.pixels.count,
            premultiplies: premultiplying && format.hasAlpha && !format.isPremultiplied)
        // Cost in quarter operations: the vertical kernel spends about 1/4 per sample and tap,
        // the horizontal one about 5/4 per pixel and tap (see ConvolveAVX2.c). The order only
        // changes the result where a pass can overshoot and its 8-bit intermediate is clamped
        // (negative lobes: bicubic, Lanczos); then it is Pillow 13's, as seen on the reference
        // cases: vertical first only when that leaves the clearly smaller intermediate.
        let verticalFirst = outHeight * loadWidth * channels * vertical.taps + 5 * outHeight * outWidth * horizontal.taps
        let horizontalFirst = 5 * planeRows * outWidth * horizontal.taps + outHeight * outWidth * channels * vertical.taps
        let overshoots = horizontal.weights.contains { $0 < 0 } || vertical.weights.contains { $0 < 0 }
        let rowBytes = outWidth * channels
        let pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * outHeight) { buffer, initialized in
            let out = buffer.baseAddress!
            LargeBuffer.adviseHugePages(UnsafeMutableRawPointer(out), bytes: rowBytes * outHeight)
            image.pixels.withUnsafeBytes { source in
                let base = source.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let work = min(verticalFirst, horizontalFirst) / 4
                let threads = Parallel.threads(rows: outHeight, work: work, limit: threadLimit)
                let pillowOrder = 5 * loadWidth * outHeight < 4 * outWidth * planeRows
                if overshoots ? pillowOrder : verticalFirst <= horizontalFirst {
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

/// What both orders of the fixed-point passes share; each call works on its own output rows.
private struct FixedPointPlan: @unchecked Sendable {
    let image: Image
    let horizontal: FixedPointTaps
    let vertical: FixedPointTaps
    let channels: Int
    let firstColumn: Int
    let loadWidth: Int
    let outWidth: Int
    /// One past the last source row any output uses.
    let endRow: Int
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
        let (temp, padded, window, ins, outs) = (buffers.rows, buffers.padded, buffers.window, buffers.ins, buffers.outs)
        // The pointers above belong to `buffers`: keep it alive until the slice is done.
        defer { withExtendedLifetime(buffers) {} }
        // With premultiplication, source rows pass through a ring of `vertical.taps` slots, each
        // premultiplied once per slice; rows only move down.
        let ring = premultiplies ? RowSlots(count: vertical.taps, bytes: loadBytes) : nil
        defer { withExtendedLifetime(ring) {} }
        var y = rows.lowerBound
        while y < rows.upperBound {
            let n = min(batch, rows.upperBound - y)
            for j in 0..<n {
                let i = y + j, target = temp + j * padded
                let start = vertical.start(i), count = vertical.count(i)
                for k in 0..<count {
                    let p = start + k
                    if let ring {
                        window[k] = ring.row(p) { slot in ik_premultiply_u8(sourceRow(p, source), slot, loadWidth, Int32(channels)) }
                    } else {
                        window[k] = sourceRow(p, source)
                    }
                }
                ik_convolve_columns_u8(window, Int32(count), vertical.coefficients(i), vertical.precision, target, loadBytes)
                ins[j] = UnsafePointer(target)
                outs[j] = out + i * rowBytes
            }
            ik_convolve_rows_u8(ins, outs, Int32(n), Int32(channels), horizontal.cTable)
            finishRows(out + y * rowBytes, n)
            y += n
        }
    }

    /// Output rows `rows` by horizontal passes over the source rows they need (up to ``batch``
    /// at a time), kept in a ring, then a vertical pass from the ring into each output row.
    func horizontalFirst(rows: Range<Int>, source: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) {
        let batch = Self.batch, buffers = PassBuffers(plan: self)
        let (scratch, padded, window, ins, outs) = (buffers.rows, buffers.padded, buffers.window, buffers.ins, buffers.outs)
        // The pointers above belong to `buffers`: keep it alive until the slice is done.
        defer { withExtendedLifetime(buffers) {} }
        let ring = RowSlots(count: vertical.taps + batch, bytes: rowBytes)
        defer { withExtendedLifetime(ring) {} }
        var next = 0, y = rows.lowerBound
        while y < rows.upperBound {
            let start = vertical.start(y), count = vertical.count(y), end = start + count
            next = max(next, start)
            while next < end {
                // Up to `batch` rows ahead (never past the last row any output uses): the ring
                // keeps `taps + batch` rows, so none of this window is overwritten.
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
                ik_convolve_rows_u8(ins, outs, Int32(n), Int32(channels), horizontal.cTable)
                next += n
            }
            for k in 0..<count { window[k] = UnsafePointer(ring.slot(start + k)) }
            let target = out + y * rowBytes
            // An enlargement's consecutive output rows often share their source rows: then two
            // at once, reading and widening the rows once.
            if y + 1 < rows.upperBound && vertical.start(y + 1) == start && vertical.count(y + 1) == count {
                ik_convolve_columns2_u8(
                    window, Int32(count), vertical.coefficients(y), vertical.coefficients(y + 1), vertical.precision, target,
                    target + rowBytes, rowBytes)
                finishRows(target, 2)
                y += 2
            } else {
                ik_convolve_columns_u8(window, Int32(count), vertical.coefficients(y), vertical.precision, target, rowBytes)
                finishRows(target, 1)
                y += 1
            }
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
    let ins: UnsafeMutablePointer<UnsafePointer<UInt8>?>
    let outs: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>

    init(plan: FixedPointPlan) {
        let batch = FixedPointPlan.batch
        padded = plan.loadBytes + Int(IK_ROW_PADDING)
        rows = .allocate(capacity: batch * padded)
        rows.initialize(repeating: 0, count: batch * padded)
        window = .allocate(capacity: max(1, plan.vertical.taps))
        ins = .allocate(capacity: batch)
        outs = .allocate(capacity: batch)
    }

    deinit {
        rows.deallocate()
        window.deallocate()
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
