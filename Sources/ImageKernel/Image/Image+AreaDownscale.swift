extension Image {
    /// This image as straight 8-bit RGBA reduced to `size` by area (box) averaging: output column
    /// `x` of `w` averages source columns `x·W/w ..< (x+1)·W/w`, rows likewise, and colour is
    /// averaged premultiplied by alpha so transparent pixels do not darken edges.
    ///
    /// For coders whose library cannot decode straight to a smaller size (composited animation
    /// frames, GIF). `size` is clamped to at least 1×1 and at most the image's size; metadata is
    /// kept, frames are dropped.
    public func areaDownscaledRGBA8(to size: PixelSize) -> Image {
        let source = rgba8Pixels()
        let (outW, outH) = (min(width, max(1, size.width)), min(height, max(1, size.height)))
        var copy = self
        copy.frames = []
        copy.pixelFormat = .rgba8
        copy.bytesPerRow = outW * 4
        copy.width = outW
        copy.height = outH
        if outW == width && outH == height {
            copy.pixels = source
            return copy
        }
        let columnStarts = (0...outW).map { $0 * width / outW }
        var out = [UInt8](repeating: 0, count: outW * outH * 4)
        var sums = [UInt64](repeating: 0, count: outW * 4)
        for oy in 0..<outH {
            let (y0, y1) = (oy * height / outH, (oy + 1) * height / outH)
            for i in sums.indices { sums[i] = 0 }
            for y in y0..<y1 {
                let row = y * width * 4
                for ox in 0..<outW {
                    for x in columnStarts[ox]..<columnStarts[ox + 1] {
                        let p = row + x * 4
                        let alpha = UInt64(source[p + 3])
                        sums[ox * 4] += UInt64(source[p]) * alpha
                        sums[ox * 4 + 1] += UInt64(source[p + 1]) * alpha
                        sums[ox * 4 + 2] += UInt64(source[p + 2]) * alpha
                        sums[ox * 4 + 3] += alpha
                    }
                }
            }
            for ox in 0..<outW {
                let count = UInt64((columnStarts[ox + 1] - columnStarts[ox]) * (y1 - y0))
                let alphaSum = sums[ox * 4 + 3]
                let o = (oy * outW + ox) * 4
                out[o + 3] = UInt8((alphaSum + count / 2) / count)
                guard alphaSum > 0 else { continue }
                for c in 0..<3 { out[o + c] = UInt8((sums[ox * 4 + c] + alphaSum / 2) / alphaSum) }
            }
        }
        copy.pixels = out
        return copy
    }
}
