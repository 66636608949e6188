import ImageKernel

/// A deliberately plain box average, written apart from CoderPNG's, for checking its thumbnails:
/// output pixel (x, y) averages source columns `x·W/w ..< (x+1)·W/w` and rows `y·H/h ..< (y+1)·H/h`;
/// with alpha, colour is weighted by alpha (premultiplied, averaged, unpremultiplied). Rounds to
/// nearest.
func referenceBoxAverage(_ image: Image, width: Int, height: Int) -> [UInt8] {
    let format = image.pixelFormat
    let channels = format.channelCount, wide = format.bitsPerComponent == 16
    let bytesPerSample = wide ? 2 : 1
    func sample(_ x: Int, _ y: Int, _ c: Int) -> UInt64 {
        let offset = y * image.bytesPerRow + (x * channels + c) * bytesPerSample
        return wide
            ? UInt64(image.pixels.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt16.self) })
            : UInt64(image.pixels[offset])
    }
    var out: [UInt8] = []
    for y in 0..<height {
        for x in 0..<width {
            let columns = (x * image.width / width)..<((x + 1) * image.width / width)
            let rows = (y * image.height / height)..<((y + 1) * image.height / height)
            var sums = [UInt64](repeating: 0, count: channels)
            for sy in rows {
                for sx in columns {
                    let alpha = format.hasAlpha ? sample(sx, sy, channels - 1) : 1
                    for c in 0..<channels {
                        sums[c] += format.hasAlpha && c < channels - 1 ? sample(sx, sy, c) * alpha : sample(sx, sy, c)
                    }
                }
            }
            let count = UInt64(columns.count * rows.count)
            for c in 0..<channels {
                let value: UInt64
                if format.hasAlpha && c < channels - 1 {
                    let alpha = sums[channels - 1]
                    value = alpha == 0 ? 0 : (sums[c] + alpha / 2) / alpha
                } else {
                    value = (sums[c] + count / 2) / count
                }
                if wide { withUnsafeBytes(of: UInt16(value)) { out += $0 } } else { out.append(UInt8(value)) }
            }
        }
    }
    return out
}

/// The largest absolute difference between two same-length 8-bit buffers.
func maximumDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    precondition(a.count == b.count)
    return zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
}
