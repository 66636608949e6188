import ImageKernel

/// A 2-D filter as two 1-D passes. 8-bit images take the fixed-point C kernels
/// (`SeparableFilter+FixedPoint.swift`); others (16-bit, or a `finish` step) run in float:
/// horizontal then vertical, streamed through a small ring of rows, or vertical then horizontal
/// through a float plane when that leaves the smaller intermediate (Pillow's order). Work is split by rows across cores for large images; the inner
/// loops run over `SIMD4<Float>` pixels.
struct SeparableFilter {
    let horizontal: FilterWeights
    let vertical: FilterWeights
    /// The axes the weights come from, which keep their fixed-point forms.
    let horizontalAxis: FilterAxis
    let verticalAxis: FilterAxis
    /// At most this many threads (0: every core).
    let threadLimit: Int

    init(horizontal: FilterAxis, vertical: FilterAxis, threadLimit: Int) {
        self.horizontal = horizontal.weights
        self.vertical = vertical.weights
        horizontalAxis = horizontal
        verticalAxis = vertical
        self.threadLimit = threadLimit
    }

    /// A filter of weights made for this call only (not cached).
    init(horizontal: FilterWeights, vertical: FilterWeights, threadLimit: Int) {
        self.init(horizontal: FilterAxis(horizontal), vertical: FilterAxis(vertical), threadLimit: threadLimit)
    }

    /// Filters `image` into a new image of `format`'s layout (same sample depth); `finish`, when
    /// given, sees each output row (in working pixels) before it is stored.
    func apply(
        to image: Image, codec: WorkingRowCodec, outputFormat: PixelFormat,
        finish: ((_ y: Int, _ row: UnsafeMutablePointer<WorkingPixel>) -> Void)? = nil
    ) throws(ImageKernelError) -> Image {
        if finish == nil, Self.takesFixedPoint(image, outputFormat: outputFormat) {
            return try applyFixedPoint(to: image, premultiplying: codec.premultiplies)
        }
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
        let outCodec = WorkingRowCodec(outputFormat, premultiplying: codec.premultiplies)
        let base = firstColumn * image.pixelFormat.bytesPerPixel
        guard verticalFirst else {
            return try streamed(image, codec: codec, into: outputFormat, codec: outCodec, sourceOffset: base, columns: firstColumn..<endColumn, finish: finish)
        }
        let plane = UnsafeMutablePointer<WorkingPixel>.allocate(capacity: loadWidth * outHeight)
        defer { plane.deallocate() }
        let top = WorkingPixel(repeating: codec.maxValue)
        image.pixels.withUnsafeBytes { source in
            let base = source.baseAddress! + base
            let work = outHeight * loadWidth * vertical.taps
            Parallel.forEachSlice(rows: outHeight, threads: Parallel.threads(rows: outHeight, work: work, limit: threadLimit)) { rows in
                let scratch = UnsafeMutablePointer<WorkingPixel>.allocate(capacity: max(loadWidth, 1))
                defer { scratch.deallocate() }
                for r in rows {
                    let target = plane + r * loadWidth
                    target.update(repeating: .zero, count: loadWidth)
                    for k in 0..<vertical.counts[r] {
                        codec.load(base + (vertical.starts[r] + k) * image.bytesPerRow, width: loadWidth, into: scratch)
                        let w = vertical.weights[vertical.offsets[r] + k]
                        for x in 0..<loadWidth { target[x] += scratch[x] * w }
                    }
                    for x in 0..<loadWidth { target[x] = clampToRange(target[x], top) }
                }
            }
        }
        return try Image.rendering(
            like: image, width: outWidth, height: outHeight, format: outputFormat, codec: outCodec, threadLimit: threadLimit,
            work: outHeight * outWidth * horizontal.taps
        ) { y, accumulator in
            convolveRow(plane + y * loadWidth, offset: firstColumn, into: accumulator, maxValue: codec.maxValue)
            finish?(y, accumulator)
        }
    }

    /// Horizontal then vertical, streamed: each slice of output rows keeps only the horizontally
    /// filtered rows its output rows need, in a ring of `vertical.taps` rows that stays in cache,
    /// so no image-sized intermediate is allocated. Row windows only move down, so each source
    /// row is filtered once per slice.
    private func streamed(
        _ image: Image, codec: WorkingRowCodec, into outputFormat: PixelFormat, codec outCodec: WorkingRowCodec, sourceOffset: Int,
        columns: Range<Int>, finish: ((_ y: Int, _ row: UnsafeMutablePointer<WorkingPixel>) -> Void)?
    ) throws(ImageKernelError) -> Image {
        let outWidth = horizontal.outputCount, outHeight = vertical.outputCount
        let skipHorizontal = horizontal.isIdentity
        let work = image.height * outWidth * horizontal.taps + outHeight * outWidth * vertical.taps
        let (taps, loadWidth) = (vertical.taps, columns.count)
        let result = image.pixels.withUnsafeBytes { source in
            let base = source.baseAddress! + sourceOffset
            return Result { () throws(ImageKernelError) in
                try Image.rendering(
                    like: image, width: outWidth, height: outHeight, format: outputFormat, codec: outCodec, threadLimit: threadLimit, work: work,
                    // One slice per thread: each slice filters again the source rows its first
                    // output row shares with the slice before it.
                    slicesPerThread: 1, slice: { RowRing(rows: taps, width: outWidth, scratchWidth: loadWidth) }
                ) { ring, y, accumulator in
                    let start = vertical.starts[y], end = start + vertical.counts[y]
                    for p in max(ring.next, start)..<max(end, ring.next) {
                        let row = base + p * image.bytesPerRow
                        if skipHorizontal {
                            codec.load(row, width: outWidth, into: ring.row(p))
                        } else {
                            codec.load(row, width: loadWidth, into: ring.scratch)
                            convolveRow(ring.scratch, offset: columns.lowerBound, into: ring.row(p), maxValue: codec.maxValue)
                        }
                    }
                    ring.next = max(ring.next, end)
                    for k in 0..<(end - start) { ring.window[k] = UnsafePointer(ring.row(start + k)) }
                    convolveColumn(ring.window, output: y, width: outWidth, into: accumulator)
                    finish?(y, accumulator)
                }
            }
        }
        return try result.get()
    }

    /// One row of the horizontal pass; `row` holds source columns from `offset` on. Results are
    /// clamped to the sample range (as Pillow and libvips clamp their 8-bit intermediate), so a
    /// ringing filter's overshoot is not carried into the vertical pass.
    @inline(__always)
    private func convolveRow(_ row: UnsafePointer<WorkingPixel>, offset: Int, into out: UnsafeMutablePointer<WorkingPixel>, maxValue: Float) {
        let top = WorkingPixel(repeating: maxValue)
        horizontal.weights.withUnsafeBufferPointer { weights in
            horizontal.starts.withUnsafeBufferPointer { starts in
                horizontal.counts.withUnsafeBufferPointer { counts in
                    let offsets = horizontal.offsets
                    for x in 0..<horizontal.outputCount {
                        let tapsOfX = weights.baseAddress! + offsets[x]
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

    /// One output row of the vertical pass, into `out`, from the rows in `window` (the output's
    /// taps in order): four output pixels at a time, each summing its column in a register.
    @inline(__always)
    private func convolveColumn(
        _ window: UnsafePointer<UnsafePointer<WorkingPixel>>, output y: Int, width: Int, into out: UnsafeMutablePointer<WorkingPixel>
    ) {
        let count = vertical.counts[y]
        vertical.weights.withUnsafeBufferPointer { weights in
            let w = weights.baseAddress! + vertical.offsets[y]
            var x = 0
            while x + 4 <= width {
                var s0 = WorkingPixel.zero, s1 = WorkingPixel.zero, s2 = WorkingPixel.zero, s3 = WorkingPixel.zero
                for k in 0..<count {
                    let row = window[k] + x, weight = w[k]
                    s0 += row[0] * weight
                    s1 += row[1] * weight
                    s2 += row[2] * weight
                    s3 += row[3] * weight
                }
                out[x] = s0
                out[x + 1] = s1
                out[x + 2] = s2
                out[x + 3] = s3
                x += 4
            }
            while x < width {
                var sum = WorkingPixel.zero
                for k in 0..<count { sum += window[k][x] * w[k] }
                out[x] = sum
                x += 1
            }
        }
    }
}

/// The last few horizontally filtered rows of one slice of a streamed ``SeparableFilter``:
/// source row `p` lives in slot `p % rows`. Used by one thread only.
final class RowRing {
    let rows: Int
    let width: Int
    /// The next source row to filter.
    var next = 0
    /// Where a source row is loaded before the horizontal pass.
    let scratch: UnsafeMutablePointer<WorkingPixel>
    /// The current output row's plane rows, in tap order.
    let window: UnsafeMutablePointer<UnsafePointer<WorkingPixel>>
    private let storage: UnsafeMutablePointer<WorkingPixel>

    init(rows: Int, width: Int, scratchWidth: Int) {
        self.rows = rows
        self.width = width
        storage = .allocate(capacity: rows * width)
        scratch = .allocate(capacity: max(1, scratchWidth))
        window = .allocate(capacity: rows)
    }

    deinit {
        storage.deallocate()
        scratch.deallocate()
        window.deallocate()
    }

    /// The slot of source row `p`.
    func row(_ p: Int) -> UnsafeMutablePointer<WorkingPixel> { storage + (p % rows) * width }
}

/// `v` clamped to `0 ... top` lane by lane, with scalar min and max (which vectorise), not the
/// generic `clamped` that goes through pointwise helper calls.
@inline(__always)
func clampToRange(_ v: WorkingPixel, _ top: WorkingPixel) -> WorkingPixel {
    WorkingPixel(min(max(v.x, 0), top.x), min(max(v.y, 0), top.y), min(max(v.z, 0), top.z), min(max(v.w, 0), top.w))
}
