import ImageKernel

/// Downscales interleaved 8-bit pixels by area averaging: each output pixel is the mean of the
/// source area it covers, with fractional edges weighted. Cheap and alias-free for the small
/// (under 2×) reductions left after libjpeg's DCT scaling; also fine for large factors.
enum AreaResampler {
    /// Returns `target.width × target.height × channels` bytes, tightly packed.
    static func downscale(
        _ source: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int, channels: Int,
        to target: PixelSize
    ) -> [UInt8] {
        let (outWidth, outHeight) = (target.width, target.height)
        let columns = Spans(from: width, to: outWidth)
        let rows = Spans(from: height, to: outHeight)
        let rowFloats = outWidth * channels
        let src = source.bindMemory(to: UInt8.self)
        // Horizontal pass into floats, one row per source row.
        var horizontal = [Float](repeating: 0, count: rowFloats * height)
        horizontal.withUnsafeMutableBufferPointer { out in
            columns.withPointers { first, count, offset, weight in
                for y in 0..<height {
                    let inRow = src.baseAddress! + y * bytesPerRow
                    let outRow = out.baseAddress! + y * rowFloats
                    for x in 0..<outWidth {
                        let start = inRow + first[x] * channels
                        let w = weight + offset[x]
                        for c in 0..<channels {
                            var sum: Float = 0
                            for k in 0..<count[x] { sum += Float(start[k * channels + c]) * w[k] }
                            outRow[x * channels + c] = sum
                        }
                    }
                }
            }
        }
        // Vertical pass, row-major so the inner loops run over contiguous floats.
        var result = [UInt8](repeating: 0, count: rowFloats * outHeight)
        var accumulator = [Float](repeating: 0, count: rowFloats)
        horizontal.withUnsafeBufferPointer { h in
            result.withUnsafeMutableBufferPointer { out in
                accumulator.withUnsafeMutableBufferPointer { acc in
                    rows.withPointers { first, count, offset, weight in
                        for y in 0..<outHeight {
                            for i in 0..<rowFloats { acc[i] = 0 }
                            for k in 0..<count[y] {
                                let row = h.baseAddress! + (first[y] + k) * rowFloats
                                let w = weight[offset[y] + k]
                                for i in 0..<rowFloats { acc[i] += row[i] * w }
                            }
                            let outRow = out.baseAddress! + y * rowFloats
                            for i in 0..<rowFloats { outRow[i] = UInt8(min(255, max(0, acc[i] + 0.5))) }
                        }
                    }
                }
            }
        }
        return result
    }

    /// For each output index along one axis: the first source index it averages, how many, and
    /// their normalised weights, in flat arrays.
    struct Spans {
        var first: [Int] = []
        var count: [Int] = []
        var offset: [Int] = []
        var weights: [Float] = []

        init(from source: Int, to target: Int) {
            let ratio = Double(source) / Double(target)
            for index in 0..<target {
                let start = Double(index) * ratio
                let end = min(Double(source), Double(index + 1) * ratio)
                let low = min(source - 1, Int(start))
                let high = max(low, min(source - 1, Int((end - 1e-9).rounded(.up)) - 1))
                let overlaps = (low...high).map { max(0, min(Double($0 + 1), end) - max(Double($0), start)) }
                let total = overlaps.reduce(0, +)
                first.append(low)
                offset.append(weights.count)
                if total > 0 {
                    count.append(overlaps.count)
                    weights += overlaps.map { Float($0 / total) }
                } else {
                    count.append(1)
                    weights.append(1)
                }
            }
        }

        func withPointers<R>(
            _ body: (UnsafePointer<Int>, UnsafePointer<Int>, UnsafePointer<Int>, UnsafePointer<Float>) -> R
        ) -> R {
            first.withUnsafeBufferPointer { f in
                count.withUnsafeBufferPointer { c in
                    offset.withUnsafeBufferPointer { o in
                        weights.withUnsafeBufferPointer { w in body(f.baseAddress!, c.baseAddress!, o.baseAddress!, w.baseAddress!) }
                    }
                }
            }
        }
    }
}
