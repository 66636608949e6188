import ImageKernel

/// A 2-D filter as two 1-D passes through a float plane: horizontal then vertical, or vertical
/// then horizontal when that leaves the smaller intermediate (Pillow's order). Both passes split their
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
        try TransformLimits.check(width: max(loadWidth, 1), height: max(outHeight, 1), what: "intermediate of the filter")
        let skipHorizontal = horizontal.isIdentity, skipVertical = vertical.isIdentity
        // The pass that leaves the clearly smaller intermediate goes first (horizontal on a near
        // tie), which also matches the order Pillow 13 was seen to pick on the reference cases.
        let verticalFirst = !skipVertical && !skipHorizontal && 5 * loadWidth * outHeight < 4 * outWidth * planeRows
        let planeWidth = verticalFirst ? loadWidth : outWidth, planeHeight = verticalFirst ? outHeight : planeRows
        let plane = UnsafeMutablePointer<WorkingPixel>.allocate(capacity: planeWidth * max(planeHeight, 1))
        defer { plane.deallocate() }
        let outCodec = WorkingRowCodec(outputFormat, premultiplying: codec.premultiplies)
        let sourceBytesPerPixel = image.pixelFormat.bytesPerPixel
        let top = WorkingPixel(repeating: codec.maxValue)
        let firstWork = verticalFirst ? outHeight * loadWidth * vertical.taps : planeRows * outWidth * horizontal.taps
        let secondWork = verticalFirst ? outHeight * outWidth * horizontal.taps : outHeight * outWidth * vertical.taps

        image.pixels.withUnsafeBytes { source in
            let base = source.baseAddress! + firstColumn * sourceBytesPerPixel
            Parallel.forEachSlice(rows: planeHeight, threads: Parallel.threads(rows: planeHeight, work: firstWork, limit: threadLimit)) { rows in
                let scratch = UnsafeMutablePointer<WorkingPixel>.allocate(capacity: max(loadWidth, 1))
                defer { scratch.deallocate() }
                for r in rows {
                    let target = plane + r * planeWidth
                    if verticalFirst {
                        target.update(repeating: .zero, count: loadWidth)
                        for k in 0..<vertical.counts[r] {
                            codec.load(base + (vertical.starts[r] + k) * image.bytesPerRow, width: loadWidth, into: scratch)
                            let w = vertical.weights[r * vertical.taps + k]
                            for x in 0..<loadWidth { target[x] += scratch[x] * w }
                        }
                        for x in 0..<loadWidth { target[x] = clampToRange(target[x], top) }
                    } else if skipHorizontal {
                        codec.load(base + (firstRow + r) * image.bytesPerRow, width: outWidth, into: target)
                    } else {
                        codec.load(base + (firstRow + r) * image.bytesPerRow, width: loadWidth, into: scratch)
                        convolveRow(scratch, offset: firstColumn, into: target, maxValue: codec.maxValue)
                    }
                }
            }
        }
        return try Image.rendering(
            like: image, width: outWidth, height: outHeight, format: outputFormat, codec: outCodec, threadLimit: threadLimit, work: secondWork
        ) { y, accumulator in
            if verticalFirst {
                convolveRow(plane + y * planeWidth, offset: firstColumn, into: accumulator, maxValue: codec.maxValue)
            } else if skipVertical {
                accumulator.update(from: plane + (y - firstRow) * outWidth, count: outWidth)
            } else {
                convolveColumn(plane, rowOffset: firstRow, width: outWidth, output: y, into: accumulator)
            }
            finish?(y, accumulator)
        }
    }

    /// One row of the horizontal pass; `row` holds source columns from `offset` on. Results are
    /// clamped to the sample range (as Pillow and libvips clamp their 8-bit intermediate), so a
    /// ringing filter's overshoot is not carried into the vertical pass.
    @inline(__always)
    private func convolveRow(_ row: UnsafePointer<WorkingPixel>, offset: Int, into out: UnsafeMutablePointer<WorkingPixel>, maxValue: Float) {
        let taps = horizontal.taps
        let top = WorkingPixel(repeating: maxValue)
        horizontal.weights.withUnsafeBufferPointer { weights in
            horizontal.starts.withUnsafeBufferPointer { starts in
                horizontal.counts.withUnsafeBufferPointer { counts in
                    for x in 0..<horizontal.outputCount {
                        let tapsOfX = weights.baseAddress! + x * taps
                        let first = row + (starts[x] - offset)
                        // Four independent sums hide the add latency of one long chain.
                        var s0 = WorkingPixel.zero, s1 = WorkingPixel.zero, s2 = WorkingPixel.zero, s3 = WorkingPixel.zero
                        let count = counts[x]
                        var k = 0
                        while k + 4 <= count {
                            s0 += first[k] * tapsOfX[k]
                            s1 += first[k + 1] * tapsOfX[k + 1]
                            s2 += first[k + 2] * tapsOfX[k + 2]
                            s3 += first[k + 3] * tapsOfX[k + 3]
                            k += 4
                        }
                        while k < count {
                            s0 += first[k] * tapsOfX[k]
                            k += 1
                        }
                        out[x] = clampToRange((s0 + s1) + (s2 + s3), top)
                    }
                }
            }
        }
    }

    /// One output row of the vertical pass, into `out`: four output pixels at a time, each summing
    /// its column of plane rows in a register (four independent chains, no read-modify-write of `out`).
    @inline(__always)
    private func convolveColumn(
        _ plane: UnsafePointer<WorkingPixel>, rowOffset: Int, width: Int, output y: Int, into out: UnsafeMutablePointer<WorkingPixel>
    ) {
        let count = vertical.counts[y]
        let first = plane + (vertical.starts[y] - rowOffset) * width
        vertical.weights.withUnsafeBufferPointer { weights in
            let w = weights.baseAddress! + y * vertical.taps
            var x = 0
            while x + 4 <= width {
                var s0 = WorkingPixel.zero, s1 = WorkingPixel.zero, s2 = WorkingPixel.zero, s3 = WorkingPixel.zero
                var row = first + x
                for k in 0..<count {
                    let weight = w[k]
                    s0 += row[0] * weight
                    s1 += row[1] * weight
                    s2 += row[2] * weight
                    s3 += row[3] * weight
                    row += width
                }
                out[x] = s0
                out[x + 1] = s1
                out[x + 2] = s2
                out[x + 3] = s3
                x += 4
            }
            while x < width {
                var sum = WorkingPixel.zero
                for k in 0..<count { sum += first[k * width + x] * w[k] }
                out[x] = sum
                x += 1
            }
        }
    }
}

/// `v` clamped to `0 ... top` lane by lane, with scalar min and max (which vectorise), not the
/// generic `clamped` that goes through pointwise helper calls.
@inline(__always)
func clampToRange(_ v: WorkingPixel, _ top: WorkingPixel) -> WorkingPixel {
    WorkingPixel(min(max(v.x, 0), top.x), min(max(v.y, 0), top.y), min(max(v.z, 0), top.z), min(max(v.w, 0), top.w))
}
