import CoderJXL
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("JPEG XL encoding")
struct EncodingTests {
    let coder = JXLCoder()

    /// A deterministic image in `format` whose samples use the whole range (16-bit low bytes too).
    static func pattern(_ format: PixelFormat, width: Int = 67, height: Int = 41, padding: Int = 0, seed: UInt32 = 12345) throws -> Image {
        let rowBytes = width * format.bytesPerPixel + padding
        var pixels = [UInt8](repeating: 0, count: rowBytes * height)
        var state = seed
        for y in 0..<height {
            for i in 0..<(width * format.bytesPerPixel) {
                state = state &* 1_664_525 &+ 1_013_904_223
                pixels[y * rowBytes + i] = UInt8(truncatingIfNeeded: (state >> 13) ^ UInt32(i + y))
            }
        }
        return try Image(width: width, height: height, pixelFormat: format, bytesPerRow: rowBytes, pixels: pixels)
    }

    /// A smooth opaque gradient, what lossy coding is for.
    static func gradient(width: Int = 160, height: Int = 120) throws -> Image {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width { pixels += [UInt8(x * 255 / width), UInt8(y * 255 / height), UInt8((x + y) * 255 / (width + height))] }
        }
        return try Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels)
    }

    static let formats: [PixelFormat] = [.gray8, .grayAlpha8, .rgb8, .rgba8, .gray16, .grayAlpha16, .rgb16, .rgba16]

    static func tight(_ image: Image) -> [UInt8] {
        let row = image.width * image.pixelFormat.bytesPerPixel
        return (0..<image.height).flatMap { image.pixels[($0 * image.bytesPerRow)..<($0 * image.bytesPerRow + row)] }
    }

    @Test("lossless round trip keeps format and every sample", arguments: formats)
    func losslessRoundTripIsExact(_ format: PixelFormat) throws {
        for padding in [0, 5] {
            let image = try Self.pattern(format, padding: padding)
            let data = try coder.encode(image, as: .jxl, options: EncodeOptions(lossless: true))
            #expect(ImageFormat.sniff(data) == .jxl)
            let decoded = try coder.decode(data, options: DecodeOptions(preserve16Bit: true))
            #expect(decoded.pixelFormat == format && decoded.width == image.width && decoded.height == image.height)
            #expect(Self.tight(decoded) == Self.tight(image), "\(format) padding \(padding)")
        }
    }

    @Test func lossyQualityTradesSizeForError() throws {
        let image = try Self.gradient()
        func meanError(_ quality: Double) throws -> (Double, Int) {
            let data = try coder.encode(image, as: .jxl, options: EncodeOptions(quality: quality))
            let decoded = try coder.decode(data, options: DecodeOptions())
            #expect(decoded.pixelFormat == .rgb8)
            let total = zip(decoded.pixels, image.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
            return (Double(total) / Double(image.pixels.count), data.count)
        }
        let (highError, highSize) = try meanError(0.95)
        let (lowError, lowSize) = try meanError(0.3)
        #expect(highError < 1.5 && lowError > highError && lowSize < highSize, "\(highError) \(lowError) \(highSize) \(lowSize)")
        #expect(JXLCoder(effort: 3).canEncode(.jxl) && !coder.canEncode(.png))
    }

    @Test func animationRoundTripKeepsFramesDurationsAndLoops() throws {
        let frames = try (0..<3).map { i in ImageFrame(image: try Self.pattern(.rgba8, seed: UInt32(7 + i)), duration: [0.1, 0.25, 0.04][i]) }
        let animation = try Image(animating: frames, loopCount: 3)
        let data = try coder.encode(animation, as: .jxl, options: EncodeOptions(lossless: true))
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(decoded.frameCount == 3 && decoded.loopCount == 3)
        for (ours, original) in zip(decoded.allFrames, animation.allFrames) {
            #expect(ours.image.pixels == original.image.pixels)
            #expect(abs(ours.duration - original.duration) < 1e-9)
        }
    }

    @Test func iccProfileAndCodePointsAreWritten() throws {
        // An ICC profile libjxl accepts: the one stored in a corpus file.
        let source = try coder.decode(TestData.data("jxl/conformance/lz77_flower.jxl"), options: DecodeOptions())
        let profile = try #require(source.iccProfile)
        var image = try Self.pattern(.rgb8)
        image.iccProfile = profile
        let decoded = try coder.decode(try coder.encode(image, as: .jxl, options: EncodeOptions(lossless: true)), options: DecodeOptions())
        #expect(decoded.iccProfile == profile)
        var p3 = try Self.pattern(.rgb8)
        p3.cicp = .displayP3
        let decodedP3 = try coder.decode(try coder.encode(p3, as: .jxl, options: EncodeOptions(lossless: true)), options: DecodeOptions())
        #expect(decodedP3.cicp == .displayP3 && decodedP3.iccProfile == nil)
        let plain = try coder.decode(try coder.encode(try Self.pattern(.rgb8), as: .jxl, options: EncodeOptions(lossless: true)), options: DecodeOptions())
        #expect(plain.cicp == .sRGB)
    }

    @Test func cjxlAndOurFilesDecodeAlike() throws {
        // A file written by us reads in djxl (libjxl's own tool) to the same pixels.
        try #require(LibjxlTools.available, "djxl (libjxl-tools) is needed: scripts/deps.sh installs it")
        let image = try Self.pattern(.rgba8)
        let dir = try LibjxlTools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("ours.jxl")
        try coder.encode(image, as: .jxl, options: EncodeOptions(lossless: true)).write(to: file)
        let djxl = try #require(try LibjxlTools.djxlRGBA8(file))
        #expect(djxl.pixels == image.pixels)
    }
}
