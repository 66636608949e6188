import ImageKernel

/// A 2-D filter as two 1-D passes: columns first (each needed source row into a float plane of
/// the output's width), then rows (each output row sums its plane rows). Both passes split their
/// rows across cores for large images; the inner loops run over `SIMD4<Float>` pixels.
struct SeparableFilter {
    let horizontal: FilterWeights
    let vertical: FilterWeights
    /// At most this many threads (0: every core).
    let threadLimit: Int

    /// Filters `image` into a new image of `format`'s layout (same sample depth); `finish`, when
    /// given, sees each output row (in working pixels) before it is stored.
    func apply(
        to image: Image, codec: WorkingRowCodec, outputFormat: PixelFormat,
        finish: ((_ y: Int, _ row: UnsafeMutablePointer<WorkingPixel>) -> Void)? = nil
    ) throws(ImageKernelError) -> Image {
        let outWidth = horizontal.outputCount, outHeight = vertical.outputCount
        let firstRow = vertical.starts.first ?? 0
        let endRow = zip(vertical.starts, vertical.counts).map { $0 + $1 }.max() ?? 0
        let firstColumn = horizontal.starts.first ?? 0
        let endColumn = zip(horizontal.starts, horizontal.counts).map { $0 + $1 }.max() ?? 0
        let planeRows = endRow - firstRow, loadWidth = endColumn - firstColumn
        try TransformLimits.check(width: outWidth, height: max(outHeight, planeRows), what: "intermediate of the filter")
        let outRowBytes = outWidth * outputFormat.bytesPerPixel
        var output = [UInt8](repeating: 0, count: outRowBytes * outHeight)
        let plane = UnsafeMutablePointer<WorkingPixel>.allocate(capacity: outWidth * max(planeRows, 1))
        defer { plane.deallocate() }
        let outCodec = WorkingRowCodec(outputFormat, premultiplying: codec.premultiplies)
        let sourceBytesPerPixel = image.pixelFormat.bytesPerPixel
        let horizontalWork = planeRows * outWidth * horizontal.taps
        let verticalWork = outHeight * outWidth * vertical.taps
        let skipHorizontal = horizontal.isIdentity, skipVertical = vertical.isIdentity

        image.pixels.withUnsafeBytes { source in
            let base = source.baseAddress!
            let threads = Parallel.threads(rows: planeRows, work: horizontalWork, limit: threadLimit)
            Parallel.forEachSlice(rows: planeRows, threads: threads) { rows in
                let scratch = UnsafeMutablePointer<WorkingPixel>.allocate(capacity: max(loadWidth, 1))
                defer { scratch.deallocate() }
                for r in rows {
                    let rowStart = base + (firstRow + r) * image.bytesPerRow + firstColumn * sourceBytesPerPixel
                    let target = plane + r * outWidth
                    if skipHorizontal {
                        codec.load(rowStart, width: outWidth, into: target)
                    } else {
                        codec.load(rowStart, width: loadWidth, into: scratch)
                        convolveRow(scratch, offset: firstColumn, into: target)
                    }
                }
            }
        }
        output.withUnsafeMutableBytes { destination in
            let base = destination.baseAddress!
            let threads = Parallel.threads(rows: outHeight, work: verticalWork, limit: threadLimit)
            Parallel.forEachSlice(rows: outHeight, threads: threads) { rows in
                let accumulator = UnsafeMutablePointer<WorkingPixel>.allocate(capacity: outWidth)
                defer { accumulator.deallocate() }
                for y in rows {
                    if skipVertical {
                        accumulator.update(from: plane + (y - firstRow) * outWidth, count: outWidth)
                    } else {
                        convolveColumn(plane, rowOffset: firstRow, width: outWidth, output: y, into: accumulator)
                    }
                    finish?(y, accumulator)
                    outCodec.store(accumulator, width: outWidth, into: base + y * outRowBytes)
                }
            }
        }
        return try image.derived(width: outWidth, height: outHeight, format: outputFormat, pixels: output)
    }

    /// One row of the horizontal pass; `row` holds source columns from `offset` on.
    @inline(__always)
    private func convolveRow(_ row: UnsafePointer<WorkingPixel>, offset: Int, into out: UnsafeMutablePointer<WorkingPixel>) {
        let taps = horizontal.taps
        horizontal.weights.withUnsafeBufferPointer { weights in
            horizontal.starts.withUnsafeBufferPointer { starts in
                horizontal.counts.withUnsafeBufferPointer { counts in
                    for x in 0..<horizontal.outputCount {
                        let tapsOfX = weights.baseAddress! + x * taps
                        let first = row + (starts[x] - offset)
                        var sum = WorkingPixel.zero
                        for k in 0..<counts[x] { sum += first[k] * tapsOfX[k] }
                        out[x] = sum
                    }
                }
            }
        }
    }

    /// One output row of the vertical pass, summed into `out`.
    @inline(__always)
    private func convolveColumn(
        _ plane: UnsafePointer<WorkingPixel>, rowOffset: Int, width: Int, output y: Int, into out: UnsafeMutablePointer<WorkingPixel>
    ) {
        out.update(repeating: .zero, count: width)
        let start = vertical.starts[y] - rowOffset
        for k in 0..<vertical.counts[y] {
            let w = vertical.weights[y * vertical.taps + k]
            let source = plane + (start + k) * width
            for x in 0..<width { out[x] += source[x] * w }
        }
    }
}
