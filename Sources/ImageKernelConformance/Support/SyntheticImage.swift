import ImageKernel

/// Images the suites make for themselves: smooth gradients in any pixel format.
enum SyntheticImage {
    /// A smooth gradient `width`×`height` in `format`. Red grows left to right, green top to
    /// bottom, blue along the diagonal, alpha (unless `opaque`) from 64 to 255. Rows carry
    /// `padding` extra bytes filled with `0xA5`, so a plugin that ignores `bytesPerRow` shows.
    static func gradient(width: Int, height: Int, format: PixelFormat, padding: Int = 0, opaque: Bool = false) -> Image {
        let bytesPerRow = width * format.bytesPerPixel + padding
        var pixels = [UInt8](repeating: 0xA5, count: bytesPerRow * height)
        let wide = format.bitsPerComponent == 16
        pixels.withUnsafeMutableBytes { buffer in
            for y in 0..<height {
                for x in 0..<width {
                    let red = ramp(x, width), green = ramp(y, height), blue = ramp(x + y, width + height - 1)
                    let alpha = opaque || !format.hasAlpha ? 255 : 64 + ramp(x * 3 + y, width * 3 + height) * 191 / 255
                    let gray = (red * 2 + green) / 3
                    var samples: [Int]
                    switch format.layout {
                    case .gray: samples = [gray]
                    case .grayAlpha: samples = [gray, alpha]
                    case .rgb: samples = [red, green, blue]
                    case .rgba: samples = [red, green, blue, alpha]
                    }
                    if format.isPremultiplied {
                        for c in 0..<(samples.count - 1) { samples[c] = (samples[c] * alpha + 127) / 255 }
                    }
                    var offset = y * bytesPerRow + x * format.bytesPerPixel
                    for sample in samples {
                        if wide {
                            buffer.storeBytes(of: UInt16(sample) * 257, toByteOffset: offset, as: UInt16.self)
                            offset += 2
                        } else {
                            buffer[offset] = UInt8(sample)
                            offset += 1
                        }
                    }
                }
            }
        }
        do {
            return try Image(width: width, height: height, pixelFormat: format, bytesPerRow: bytesPerRow, pixels: pixels)
        } catch {
            preconditionFailure("synthetic image \(width)x\(height) \(format) is invalid: \(error)")
        }
    }

    /// Every pixel format the kernel names, 8- and 16-bit, straight and premultiplied.
    static let allPixelFormats: [PixelFormat] = [
        .rgba8, .rgba8Premultiplied, .rgb8, .gray8, .grayAlpha8, .rgba16, .rgb16, .gray16, .grayAlpha16,
    ]

    private static func ramp(_ value: Int, _ extent: Int) -> Int {
        extent <= 1 ? 128 : value * 255 / (extent - 1)
    }
}
