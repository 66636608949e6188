import CTransformKernels
import ImageKernel

/// One 8-bit plane filtered band by band while its source rows arrive (a plane still being
/// decoded): the transposed, horizontal-first path of ``SeparableFilter`` run over each new band
/// of source rows, then every output row whose vertical taps the bands done so far cover. The
/// same taps, kernels and 8-bit intermediate as the whole-plane path, so the same bytes.
///
/// Not thread-safe: one thread drives it; the source rows it is told about must be final.
final class BandedPlaneFilter: @unchecked Sendable {
    /// Source rows per band: the column kernel works on 32 samples at once and the transposes on
    /// 16x16 blocks, so bands below this would fall to their scalar tails.
    static let bandRows = 32

    let outWidth: Int, outHeight: Int
    /// The output, `outHeight` rows of `outWidth` bytes.
    let output: UnsafeMutablePointer<UInt8>
    /// Output rows done so far.
    private(set) var outputsDone = 0
    /// Source rows through the horizontal pass so far (absolute; from `firstRow`).
    private var rowsDone: Int

    private let h: FixedPointTaps, v: FixedPointTaps
    private let source: UnsafePointer<UInt8>, sourceStride: Int
    private let firstColumn: Int, loadWidth: Int, firstRow: Int, endRow: Int
    private let tStride: Int, uStride: Int
    private let t: UnsafeMutablePointer<UInt8>, t1: UnsafeMutablePointer<UInt8>, u: UnsafeMutablePointer<UInt8>
    private let window: UnsafeMutablePointer<UnsafePointer<UInt8>?>
    /// Where `t`, `t1`, `u` and `output` live (``ScratchPool``).
    private let blocks: [ScratchPool.Block]
    /// For each `n`, one past the last source row outputs `0 ..< n` read.
    private let rowsNeeded: [Int]

    /// A banded run of `filter` over a one-byte-per-sample plane at `source`, or nil when the
    /// whole-plane path would not take the transposed, horizontal-first route (its bytes would
    /// then not be this one's) or a limit is exceeded (the whole-plane path reports it).
    init?(_ filter: SeparableFilter, source: UnsafePointer<UInt8>, bytesPerRow: Int) {
        guard let layout = try? filter.fixedPointLayout(channels: 1), !layout.verticalFirst,
              SeparableFilter.takesTransposed(channels: 1, loadWidth: layout.loadWidth, planeRows: layout.planeRows)
        else { return nil }
        outWidth = layout.outWidth
        outHeight = layout.outHeight
        firstColumn = layout.firstColumn
        loadWidth = layout.loadWidth
        firstRow = layout.firstRow
        endRow = layout.endRow
        rowsDone = layout.firstRow
        h = filter.horizontalAxis.fixedPoint(origin: layout.firstColumn, paired: false).taps
        v = filter.verticalAxis.fixedPoint(origin: 0, paired: false).taps
        self.source = source
        sourceStride = bytesPerRow
        let slack = 64  // as the whole-plane path: SIMD reads run past a row's samples
        tStride = layout.planeRows + slack
        uStride = outWidth + slack
        blocks = [loadWidth * tStride, outWidth * tStride, layout.planeRows * uStride, outWidth * outHeight].map(ScratchPool.shared.take)
        t = blocks[0].base
        t1 = blocks[1].base
        u = blocks[2].base
        output = blocks[3].base
        window = .allocate(capacity: max(1, h.taps, v.taps))
        var needed = [layout.firstRow]
        needed.reserveCapacity(outHeight + 1)
        for i in 0..<outHeight { needed.append(max(needed[i], v.start(i) + v.count(i))) }
        rowsNeeded = needed
    }

    deinit {
        blocks.forEach(ScratchPool.shared.giveBack)
        window.deallocate()
    }

    /// Filters what source rows `0 ..< available` allow: whole bands, and the rest once every
    /// row the filter reads is there; then the output rows they complete.
    func advance(available: Int) {
        let available = min(available, endRow)
        while rowsDone < available {
            let pending = available - rowsDone
            let count = available == endRow ? pending : pending / Self.bandRows * Self.bandRows
            guard count > 0 else { break }
            horizontalBand(from: rowsDone, count: count)
            rowsDone += count
        }
        while outputsDone < outHeight, rowsNeeded[outputsDone + 1] <= rowsDone {
            let i = outputsDone
            let count = v.count(i), start = v.start(i)
            for k in 0..<count { window[k] = UnsafePointer(u + (start + k - firstRow) * uStride) }
            ik_convolve_columns_u8(window, Int32(count), v.coefficients(i), v.precision, output + i * outWidth, outWidth)
            outputsDone += 1
        }
    }

    /// Source rows `from ..< from + count` through the horizontal pass: transposed into T's
    /// columns, the taps run down T's rows into T1, and T1's columns transposed back into U's rows.
    private func horizontalBand(from row: Int, count: Int) {
        let offset = row - firstRow
        ik_transpose_u8(source + row * sourceStride + firstColumn, sourceStride, t + offset, tStride, Int32(loadWidth), Int32(count))
        for j in 0..<outWidth {
            let start = h.start(j), taps = h.count(j)
            for k in 0..<taps { window[k] = UnsafePointer(t + (start + k) * tStride + offset) }
            ik_convolve_columns_u8(window, Int32(taps), h.coefficients(j), h.precision, t1 + j * tStride + offset, count)
        }
        ik_transpose_u8(t1 + offset, tStride, u + offset * uStride, uStride, Int32(count), Int32(outWidth))
    }
}
