import CTransformKernels
import ImageKernel

/// One channel, the horizontal pass run as a vertical one: the rows the filter reads are
/// transposed, the horizontal taps run down the columns of that (the vertical kernel works on 32
/// samples at once, where a horizontal pass over one channel gathers one output at a time), the
/// result is transposed back and the vertical taps run as usual. The same integer arithmetic as
/// the other paths, so the same bytes. A 400x300 → 300x200 fill of 4:2:0 planes (bench-resize,
/// fastest of 201): 0.120 ms, against 0.166 ms with the one-channel horizontal kernel (and 0.132
/// ms for the same fill in RGB).
extension SeparableFilter {
    /// The largest source area (samples the filter reads) that takes the transposed path: its three
    /// intermediate planes are then at most a few times this in bytes.
    static let transposedSampleLimit = 1 << 22

    /// Whether a one-channel image whose filter reads `loadWidth` x `planeRows` samples takes
    /// ``applyTransposed(to:horizontal:vertical:firstColumn:loadWidth:firstRow:planeRows:threads:)``:
    /// with SIMD kernels only (the portable level keeps the direct path, which tests compare to).
    static func takesTransposed(channels: Int, loadWidth: Int, planeRows: Int) -> Bool {
        channels == 1 && loadWidth > 0 && planeRows > 0 && loadWidth * planeRows <= transposedSampleLimit && ik_simd_level() >= 1
    }

    /// The filtered pixels, `outWidth` x `outHeight`, tightly packed, with the passes in the order
    /// the direct path takes (`verticalFirst`), so the 8-bit intermediate, and the bytes, are its.
    /// `horizontal` counts columns from `firstColumn`, `vertical` rows from 0.
    func applyTransposed(
        to image: Image, horizontal h: FixedPointTaps, vertical v: FixedPointTaps,
        firstColumn: Int, loadWidth: Int, firstRow: Int, planeRows: Int, verticalFirst: Bool, threads: Int
    ) -> [UInt8] {
        let outWidth = h.outputCount, outHeight = v.outputCount
        // The rows the horizontal taps run down: source rows, or the vertical pass's output rows.
        let across = verticalFirst ? outHeight : planeRows
        let slack = 64  // every row keeps this much allocated past its samples
        let tStride = across + slack, uStride = outWidth + slack, wStride = loadWidth + slack
        let blocks = [loadWidth * tStride, outWidth * tStride, verticalFirst ? outHeight * wStride : planeRows * uStride].map(ScratchPool.shared.take)
        defer { blocks.forEach(ScratchPool.shared.giveBack) }
        let t = blocks[0].base, t1 = blocks[1].base, u = blocks[2].base
        let buffers = TransposedBuffers(t: t, t1: t1, u: u)
        return [UInt8](unsafeUninitializedCapacity: outWidth * outHeight) { out, initialized in
            let target = out.baseAddress!
            image.pixels.withUnsafeBytes { source in
                let base = source.baseAddress!.assumingMemoryBound(to: UInt8.self)
                if verticalFirst {
                    // Vertical taps over the source rows (from `firstColumn`), then transposed.
                    Self.columnPass(v, outputs: outHeight, threads: threads, bytes: loadWidth, into: buffers.u, stride: wStride) {
                        UnsafePointer(base + $0 * image.bytesPerRow + firstColumn)
                    }
                    ik_transpose_u8(u, wStride, t, tStride, Int32(loadWidth), Int32(outHeight))
                } else {
                    ik_transpose_u8(base + firstRow * image.bytesPerRow + firstColumn, image.bytesPerRow, t, tStride, Int32(loadWidth), Int32(planeRows))
                }
            }
            // Output column j: the horizontal taps of j down T's rows (the columns from `firstColumn`).
            Self.columnPass(h, outputs: outWidth, threads: threads, bytes: across, into: buffers.t1, stride: tStride) {
                UnsafePointer(buffers.t + $0 * tStride)
            }
            if verticalFirst {
                ik_transpose_u8(t1, tStride, target, outWidth, Int32(outHeight), Int32(outWidth))
            } else {
                ik_transpose_u8(t1, tStride, u, uStride, Int32(planeRows), Int32(outWidth))
                Self.columnPass(v, outputs: outHeight, threads: threads, bytes: outWidth, into: target, stride: outWidth) {
                    UnsafePointer(buffers.u + ($0 - firstRow) * uStride)
                }
            }
            initialized = outWidth * outHeight
        }
    }

    /// Output row `i` (of `outputs`) into `into + i * stride`: the taps of `i` over the rows
    /// `row(start + k)`, `bytes` samples each, split by output rows across `threads`.
    private static func columnPass(
        _ taps: FixedPointTaps, outputs: Int, threads: Int, bytes: Int, into: UnsafeMutablePointer<UInt8>, stride: Int,
        row: (Int) -> UnsafePointer<UInt8>
    ) {
        let target = SharedRows(base: into)
        Parallel.forEachSlice(rows: outputs, threads: threads, slicesPerThread: 1) { slice in
            let window = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: max(1, taps.taps))
            defer { window.deallocate() }
            for i in slice {
                let start = taps.start(i), count = taps.count(i)
                for k in 0..<count { window[k] = row(start + k) }
                ik_convolve_columns_u8(window, Int32(count), taps.coefficients(i), taps.precision, target.base + i * stride, bytes)
            }
        }
    }
}

/// The intermediate planes, shared read-only (T, U) or by disjoint rows (T1) across slices.
private struct TransposedBuffers: @unchecked Sendable {
    let t: UnsafeMutablePointer<UInt8>
    let t1: UnsafeMutablePointer<UInt8>
    let u: UnsafeMutablePointer<UInt8>
}

/// A pass's output plane, whose rows the slices write disjointly.
private struct SharedRows: @unchecked Sendable {
    let base: UnsafeMutablePointer<UInt8>
}
