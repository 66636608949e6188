import ImageKernel
import Testing

@Suite("Image.areaDownscaled")
struct AreaDownscaleTests {
    /// A slow, obviously correct box average of one output sample (straight alpha weighting).
    static func reference(_ image: Image, _ size: PixelSize, x: Int, y: Int, channel: Int) -> Int {
        let f = image.pixelFormat
        let wide = f.bitsPerComponent == 16
        func sample(_ sx: Int, _ sy: Int, _ c: Int) -> Int {
            let o = sy * image.bytesPerRow + (sx * f.channelCount + c) * f.bytesPerSample
            return wide ? Int(image.pixels[o]) | Int(image.pixels[o + 1]) << 8 : Int(image.pixels[o])
        }
        let cols = (x * image.width / size.width)..<((x + 1) * image.width / size.width)
        let rows = (y * image.height / size.height)..<((y + 1) * image.height / size.height)
        let alpha = f.hasAlpha && !f.isPremultiplied && channel != f.channelCount - 1
        var sum = 0, weight = 0
        for sy in rows {
            for sx in cols {
                let w = alpha ? sample(sx, sy, f.channelCount - 1) : 1
                sum += sample(sx, sy, channel) * w
                weight += w
            }
        }
        return weight == 0 ? 0 : (sum + weight / 2) / weight
    }

    static func pattern(_ width: Int, _ height: Int, _ format: PixelFormat, padding: Int = 0) throws -> Image {
        let rowBytes = width * format.bytesPerPixel + padding
        var pixels = [UInt8](repeating: 0, count: rowBytes * height)
        var state: UInt32 = 12345
        for i in pixels.indices {
            state = state &* 1_103_515_245 &+ 12345
            pixels[i] = UInt8(truncatingIfNeeded: state >> 16)
        }
        return try Image(width: width, height: height, pixelFormat: format, bytesPerRow: rowBytes, pixels: pixels)
    }

    @Test("matches a direct box average", arguments: [PixelFormat.rgba8, .rgb8, .gray8, .grayAlpha8, .rgba16, .gray16, .rgba8Premultiplied])
    func matchesReference(_ format: PixelFormat) throws {
        let image = try Self.pattern(37, 23, format, padding: 3)
        for size in [PixelSize(width: 10, height: 7), PixelSize(width: 1, height: 1), PixelSize(width: 37, height: 5), PixelSize(width: 36, height: 23)] {
            let out = try image.areaDownscaled(to: size)
            #expect(out.width == size.width && out.height == size.height && out.pixelFormat == format)
            let wide = format.bitsPerComponent == 16
            for y in 0..<size.height {
                for x in 0..<size.width {
                    for c in 0..<format.channelCount {
                        let o = y * out.bytesPerRow + (x * format.channelCount + c) * format.bytesPerSample
                        let got = wide ? Int(out.pixels[o]) | Int(out.pixels[o + 1]) << 8 : Int(out.pixels[o])
                        #expect(got == Self.reference(image, size, x: x, y: y, channel: c), "\(format) \(size) at \(x),\(y) c\(c)")
                    }
                }
            }
        }
    }

    @Test func transparentPixelsDoNotDarkenEdges() throws {
        // One opaque red pixel beside a transparent black one: the average is red at half alpha.
        let image = try Image(width: 2, height: 1, pixelFormat: .rgba8, pixels: [255, 0, 0, 255, 0, 0, 0, 0])
        let out = try image.areaDownscaled(to: PixelSize(width: 1, height: 1))
        #expect(out.pixels == [255, 0, 0, 128])
    }

    @Test func keepsMetadataAndRefusesGrowth() throws {
        var image = try Self.pattern(8, 8, .rgb8)
        image.orientation = .right
        image.iccProfile = [1, 2, 3]
        image.exif = [4, 5]
        image.decoderNotes = ["k": "v"]
        let out = try image.areaDownscaled(to: PixelSize(width: 4, height: 4))
        #expect(out.orientation == .right && out.iccProfile == [1, 2, 3] && out.exif == [4, 5] && out.decoderNotes == ["k": "v"])
        #expect(throws: ImageKernelError.self) { try image.areaDownscaled(to: PixelSize(width: 9, height: 4)) }
        #expect(throws: ImageKernelError.self) { try image.areaDownscaled(to: PixelSize(width: 0, height: 4)) }
    }
}
