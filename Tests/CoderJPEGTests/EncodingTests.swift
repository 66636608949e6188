import CoderJPEG
import Foundation
import ImageKernel
import Testing

@Suite("Encoding")
struct EncodingTests {
    let coder = JPEGCoder()

    /// The SOF marker's type byte and its components' sampling bytes.
    func frameHeader(_ data: Data) -> (type: UInt8, components: [UInt8])? {
        let bytes = [UInt8](data)
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                let count = Int(bytes[i + 9])
                return (marker, (0..<count).map { bytes[i + 11 + $0 * 3] })
            }
            i += 2 + length
        }
        return nil
    }

    @Test("an RGB image survives a round trip at high quality")
    func roundTrip() throws {
        let image = try Synthetic.rgbImage(width: 97, height: 61)
        let data = try coder.encode(image, as: .jpeg, options: EncodeOptions(quality: 1))
        #expect(coder.canDecode(data))
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(decoded.width == 97 && decoded.height == 61 && decoded.pixelFormat == .rgb8)
        let difference = Synthetic.meanAbsoluteDifference(image, decoded)
        #expect(difference < 3, "mean absolute difference \(difference)")
    }

    @Test("lower quality gives fewer bytes; quality maps 0...1 onto libjpeg's 1...100")
    func qualityControlsSize() throws {
        let image = try Synthetic.rgbImage(width: 128, height: 128)
        let low = try coder.encode(image, as: .jpeg, options: EncodeOptions(quality: 0.2))
        let high = try coder.encode(image, as: .jpeg, options: EncodeOptions(quality: 0.95))
        #expect(low.count < high.count)
        // Out-of-range qualities are clamped, not refused.
        let clamped = try coder.encode(image, as: .jpeg, options: EncodeOptions(quality: 7))
        #expect(clamped == (try coder.encode(image, as: .jpeg, options: EncodeOptions(quality: 1))))
    }

    @Test("progressive and 4:4:4 options show in the frame header")
    func progressiveAndSubsampling() throws {
        let image = try Synthetic.rgbImage(width: 40, height: 30)
        let plain = try #require(frameHeader(try coder.encode(image, as: .jpeg, options: EncodeOptions())))
        #expect(plain.type == 0xC0 && plain.components == [0x22, 0x11, 0x11])  // baseline 4:2:0
        let progressive = try coder.encode(image, as: .jpeg, options: EncodeOptions(progressive: true, chromaSubsampling444: true))
        let header = try #require(frameHeader(progressive))
        #expect(header.type == 0xC2 && header.components == [0x11, 0x11, 0x11])
        let decoded = try coder.decode(progressive, options: DecodeOptions())
        #expect(Synthetic.meanAbsoluteDifference(image, decoded) < 4)
    }

    @Test("alpha is composited over the background colour, white by default")
    func alphaIsComposited() throws {
        // Three 16x16 blocks of red at alpha 0, 128 and 255.
        let blocks: [[UInt8]] = [[255, 0, 0, 0], [255, 0, 0, 128], [255, 0, 0, 255]]
        let row = blocks.flatMap { block in (0..<16).flatMap { _ in block } }
        let image = try Image(width: 48, height: 16, pixelFormat: .rgba8, pixels: (0..<16).flatMap { _ in row })
        func sample(_ data: Data, x: Int) throws -> [Int] {
            let decoded = try coder.decode(data, options: DecodeOptions())
            let rgba = decoded.rgba8Pixels()
            let o = (8 * decoded.width + x) * 4
            return [Int(rgba[o]), Int(rgba[o + 1]), Int(rgba[o + 2])]
        }
        func close(_ a: [Int], _ b: [Int]) -> Bool { zip(a, b).allSatisfy { abs($0 - $1) <= 6 } }
        let white = try coder.encode(image, as: .jpeg, options: EncodeOptions(quality: 1, chromaSubsampling444: true))
        #expect(close(try sample(white, x: 1), [255, 255, 255]))  // transparent → background
        #expect(close(try sample(white, x: 18), [255, 127, 127]))  // half → mix
        #expect(close(try sample(white, x: 33), [255, 0, 0]))  // opaque → itself
        let black = try coder.encode(image, as: .jpeg, options: EncodeOptions(quality: 1, chromaSubsampling444: true, backgroundColor: .black))
        #expect(close(try sample(black, x: 1), [0, 0, 0]))
        #expect(close(try sample(black, x: 18), [128, 0, 0]))
    }

    @Test("premultiplied alpha is composited as premultiplied")
    func premultipliedAlpha() throws {
        // Premultiplied red at alpha 128 is (128, 0, 0, 128): over white → (255, 127, 127).
        let image = try Image(width: 16, height: 16, pixelFormat: .rgba8Premultiplied, pixels: (0..<256).flatMap { _ in [128, 0, 0, 128] as [UInt8] })
        let decoded = try coder.decode(try coder.encode(image, as: .jpeg, options: EncodeOptions(quality: 1, chromaSubsampling444: true)), options: DecodeOptions())
        let rgba = decoded.rgba8Pixels()
        #expect(abs(Int(rgba[0]) - 255) <= 6 && abs(Int(rgba[1]) - 127) <= 6 && abs(Int(rgba[2]) - 127) <= 6)
    }

    @Test("gray images encode as grayscale; gray with alpha over a coloured background becomes RGB")
    func grayEncodesAsGrayscale() throws {
        let gray = try Image(width: 20, height: 10, pixelFormat: .gray8, pixels: (0..<200).map { UInt8($0) })
        let data = try coder.encode(gray, as: .jpeg, options: EncodeOptions())
        #expect(frameHeader(data)?.components.count == 1)
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(decoded.pixelFormat == .gray8 && decoded.width == 20)
        let grayAlpha = try Image(width: 8, height: 8, pixelFormat: .grayAlpha8, pixels: (0..<64).flatMap { _ in [0, 0] as [UInt8] })
        let overWhite = try coder.encode(grayAlpha, as: .jpeg, options: EncodeOptions())
        #expect(frameHeader(overWhite)?.components.count == 1)
        let overRed = try coder.encode(grayAlpha, as: .jpeg, options: EncodeOptions(backgroundColor: RGBColor(red: 255, green: 0, blue: 0)))
        #expect(frameHeader(overRed)?.components.count == 3)
        let red = try coder.decode(overRed, options: DecodeOptions()).rgba8Pixels()
        #expect(red[0] > 240 && red[1] < 15 && red[2] < 15)
    }

    @Test("16-bit samples keep their high byte")
    func sixteenBitKeepsHighByte() throws {
        let samples: [UInt16] = (0..<(16 * 16)).flatMap { _ in [0x80FF, 0x2000, 0xF010] }
        let bytes = samples.withUnsafeBytes { Array($0) }
        let image = try Image(width: 16, height: 16, pixelFormat: .rgb16, pixels: bytes)
        let decoded = try coder.decode(try coder.encode(image, as: .jpeg, options: EncodeOptions(quality: 1, chromaSubsampling444: true)), options: DecodeOptions())
        let rgba = decoded.rgba8Pixels()
        #expect(abs(Int(rgba[0]) - 0x80) <= 3 && abs(Int(rgba[1]) - 0x20) <= 3 && abs(Int(rgba[2]) - 0xF0) <= 3)
    }

    @Test("an ICC profile is written as APP2 and read back, also when it needs several markers")
    func iccProfileRoundTrip() throws {
        for size in [3_000, 150_000] {
            let profile = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            var image = try Synthetic.rgbImage(width: 16, height: 16)
            image.iccProfile = profile
            let decoded = try coder.decode(try coder.encode(image, as: .jpeg, options: EncodeOptions()), options: DecodeOptions())
            #expect(decoded.iccProfile == profile)
        }
    }

    @Test("rows with padding are encoded from bytesPerRow")
    func paddedRows() throws {
        var pixels = [UInt8](repeating: 0, count: 10 * 64)
        for y in 0..<10 { for x in 0..<30 { pixels[y * 64 + x] = 200 } }
        let image = try Image(width: 10, height: 10, pixelFormat: .rgb8, bytesPerRow: 64, pixels: pixels)
        let decoded = try coder.decode(try coder.encode(image, as: .jpeg, options: EncodeOptions(quality: 1)), options: DecodeOptions())
        #expect(decoded.rgba8Pixels().enumerated().allSatisfy { $0.offset % 4 == 3 || abs(Int($0.element) - 200) <= 3 })
    }

    @Test("only JPEG can be encoded")
    func onlyJPEG() throws {
        #expect(coder.canEncode(.jpeg) && !coder.canEncode(.png))
        let error = #expect(throws: ImageKernelError.self) {
            try coder.encode(try Synthetic.rgbImage(width: 2, height: 2), as: .png, options: EncodeOptions())
        }
        #expect(error?.code == .unsupported && error?.stage == .encode)
    }
}
