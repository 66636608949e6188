import ImageKernel

/// Downscales interleaved 8-bit pixels by area averaging: each output pixel is the mean of the
/// source area it covers, with fractional edges weighted. Cheap and alias-free for the small
/// (under 2×) reductions left after libjpeg's DCT scaling; also fine for large factors.
enum AreaResampler {
    /// Returns `width × height × channels` bytes, tightly packed.
    static func downscale(
        _ source: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int, channels: Int,
        to target: PixelSize
    ) -> [UInt8] {
        let (outWidth, outHeight) = (target.width, target.height)
        let columns = weights(from: width, to: outWidth)
        let rows = weights(from: height, to: outHeight)
        let rowFloats = outWidth * channels
        // Horizontal pass into floats, one row per source row.
        var horizontal = [Float](repeating: 0, count: rowFloats * height)
        horizontal.withUnsafeMutableBufferPointer { out in
            let src = source.bindMemory(to: UInt8.self)
            for y in 0..<height {
                let inRow = y * bytesPerRow
                let outRow = y * rowFloats
                for x in 0..<outWidth {
                    let span = columns[x]
                    for c in 0..<channels {
                        var sum: Float = 0
                        for (i, w) in span.weights.enumerated() {
                            sum += Float(src[inRow + (span.first + i) * channels + c]) * w
                        }
                        out[outRow + x * channels + c] = sum
                    }
                }
            }
        }
        // Vertical pass, row-major so inner loops stay contiguous.
        var result = [UInt8](repeating: 0, count: rowFloats * outHeight)
        var accumulator = [Float](repeating: 0, count: rowFloats)
        horizontal.withUnsafeBufferPointer { h in
            result.withUnsafeMutableBufferPointer { out in
                accumulator.withUnsafeMutableBufferPointer { acc in
                    for y in 0..<outHeight {
                        let span = rows[y]
                        for i in 0..<rowFloats { acc[i] = 0 }
                        for (k, w) in span.weights.enumerated() {
                            let row = (span.first + k) * rowFloats
                            for i in 0..<rowFloats { acc[i] += h[row + i] * w }
                        }
                        let outRow = y * rowFloats
                        for i in 0..<rowFloats { out[outRow + i] = UInt8(min(255, max(0, acc[i] + 0.5))) }
                    }
                }
            }
        }
        return result
    }

    /// The source run one output index averages, with normalised weights.
    struct Span {
        var first: Int
        var weights: [Float]
    }

    static func weights(from source: Int, to target: Int) -> [Span] {
        let ratio = Double(source) / Double(target)
        return (0..<target).map { index in
            let start = Double(index) * ratio
            let end = min(Double(source), Double(index + 1) * ratio)
            let first = min(source - 1, Int(start))
            let last = max(first, min(source - 1, Int((end - 1e-9).rounded(.up)) - 1))
            var weights: [Float] = []
            var total = 0.0
            for i in first...last {
                let overlap = max(0, min(Double(i + 1), end) - max(Double(i), start))
                weights.append(Float(overlap))
                total += overlap
            }
            if total <= 0 { return Span(first: first, weights: [1]) }
            return Span(first: first, weights: weights.map { $0 / Float(total) })
        }
    }
}
