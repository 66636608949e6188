extension Image {
    /// The pixels converted to straight (non-premultiplied) 8-bit RGBA, rows top to bottom with
    /// no padding. 16-bit samples keep their high byte (libpng's `strip_16`); gray is replicated
    /// into R, G and B; a missing alpha channel becomes 255. Orientation is not applied.
    /// An inconsistent image (see ``isConsistent``) converts to an empty array instead of reading
    /// outside its buffer.
    public func rgba8Pixels() -> [UInt8] {
        guard isConsistent else { return [] }
        let format = pixelFormat
        if format == .rgba8 && bytesPerRow == width * 4 && pixels.count == width * height * 4 { return pixels }
        let channels = format.channelCount
        let wide = format.bitsPerComponent == 16
        let (width, height, bytesPerRow) = (self.width, self.height, self.bytesPerRow)
        var out = [UInt8](repeating: 255, count: width * height * 4)
        pixels.withUnsafeBytes { source in
            out.withUnsafeMutableBufferPointer { dest in
                @inline(__always) func sample(_ row: Int, _ x: Int, _ c: Int) -> UInt8 {
                    if wide {
                        return UInt8(source.loadUnaligned(fromByteOffset: row + (x * channels + c) * 2, as: UInt16.self) >> 8)
                    }
                    return source[row + x * channels + c]
                }
                for y in 0..<height {
                    let row = y * bytesPerRow
                    var o = y * width * 4
                    for x in 0..<width {
                        switch format.layout {
                        case .gray:
                            let g = sample(row, x, 0)
                            dest[o] = g; dest[o + 1] = g; dest[o + 2] = g
                        case .grayAlpha:
                            let g = sample(row, x, 0)
                            dest[o] = g; dest[o + 1] = g; dest[o + 2] = g; dest[o + 3] = sample(row, x, 1)
                        case .rgb:
                            dest[o] = sample(row, x, 0); dest[o + 1] = sample(row, x, 1); dest[o + 2] = sample(row, x, 2)
                        case .rgba:
                            dest[o] = sample(row, x, 0); dest[o + 1] = sample(row, x, 1)
                            dest[o + 2] = sample(row, x, 2); dest[o + 3] = sample(row, x, 3)
                        }
                        if format.isPremultiplied {
                            let alpha = Int(dest[o + 3])
                            for c in 0..<3 {
                                dest[o + c] = alpha == 0 ? 0 : UInt8(min(255, (Int(dest[o + c]) * 255 + alpha / 2) / alpha))
                            }
                        }
                        o += 4
                    }
                }
            }
        }
        return out
    }

    /// This image converted to straight 8-bit RGBA (see ``rgba8Pixels()``), metadata kept.
    public func convertedToRGBA8() -> Image {
        var copy = self
        copy.pixels = rgba8Pixels()
        copy.pixelFormat = .rgba8
        copy.bytesPerRow = width * 4
        return copy
    }
}
