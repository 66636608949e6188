import ImageKernel

/// The 8-bit gray or RGB rows libjpeg compresses, made from any ``Image``.
///
/// Gray8 and RGB8 images are passed through untouched. Otherwise 16-bit samples keep their high
/// byte and alpha is composited over the background (straight or premultiplied, as the format
/// says). Gray with alpha stays gray when the background is a gray, else becomes RGB.
struct JPEGEncodeInput {
    let components: Int
    private let image: Image
    private let converted: [UInt8]?

    init(_ image: Image, background: RGBColor) {
        self.image = image
        let format = image.pixelFormat
        let grayBackground = background.red == background.green && background.green == background.blue
        switch format.layout {
        case .gray: components = 1
        case .grayAlpha: components = grayBackground ? 1 : 3
        case .rgb, .rgba: components = 3
        }
        if format == .gray8 || format == .rgb8 {
            converted = nil
        } else {
            converted = Self.convert(image, components: components, background: background)
        }
    }

    /// Calls `body` with the first row and the distance between rows.
    func withPixels<R>(_ body: (UnsafePointer<UInt8>, Int) -> R) -> R {
        if let converted {
            return converted.withUnsafeBufferPointer { body($0.baseAddress!, image.width * components) }
        }
        return image.pixels.withUnsafeBufferPointer { body($0.baseAddress!, image.bytesPerRow) }
    }

    private static func convert(_ image: Image, components: Int, background: RGBColor) -> [UInt8] {
        let format = image.pixelFormat
        let channels = format.channelCount
        let wide = format.bitsPerComponent == 16
        let hasAlpha = format.hasAlpha
        let premultiplied = format.isPremultiplied
        let colorChannels = hasAlpha ? channels - 1 : channels
        let backdrop = [Int(background.red), Int(background.green), Int(background.blue)]
        let (width, height, bytesPerRow) = (image.width, image.height, image.bytesPerRow)
        var out = [UInt8](repeating: 0, count: width * height * components)
        image.pixels.withUnsafeBytes { source in
            out.withUnsafeMutableBufferPointer { dest in
                @inline(__always) func sample(_ offset: Int) -> Int {
                    wide ? Int(source.loadUnaligned(fromByteOffset: offset * 2, as: UInt16.self) >> 8) : Int(source[offset])
                }
                var o = 0
                for y in 0..<height {
                    let rowStart = y * bytesPerRow / (wide ? 2 : 1)
                    for x in 0..<width {
                        let p = rowStart + x * channels
                        let alpha = hasAlpha ? sample(p + channels - 1) : 255
                        for c in 0..<components {
                            let value = sample(p + min(c, colorChannels - 1))
                            let back = backdrop[c]
                            let blended: Int
                            if alpha == 255 {
                                blended = value
                            } else if premultiplied {
                                blended = min(255, value + (back * (255 - alpha) + 127) / 255)
                            } else {
                                blended = (value * alpha + back * (255 - alpha) + 127) / 255
                            }
                            dest[o] = UInt8(blended)
                            o += 1
                        }
                    }
                }
            }
        }
        return out
    }
}
