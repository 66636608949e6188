import CoderTIFF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("TIFF encoding")
struct EncodingTests {
    /// A deterministic image in `format` whose samples use the whole range (16-bit low bytes too).
    static func pattern(_ format: PixelFormat, width: Int = 67, height: Int = 41, padding: Int = 0) throws -> Image {
        let rowBytes = width * format.bytesPerPixel + padding
        var pixels = [UInt8](repeating: 0, count: rowBytes * height)
        var state: UInt32 = 12345
        for y in 0..<height {
            for i in 0..<(width * format.bytesPerPixel) {
                state = state &* 1_664_525 &+ 1_013_904_223
                pixels[y * rowBytes + i] = UInt8(truncatingIfNeeded: (state >> 13) ^ UInt32(i + y))
            }
        }
        return try Image(width: width, height: height, pixelFormat: format, bytesPerRow: rowBytes, pixels: pixels)
    }

    static let formats: [PixelFormat] = [.gray8, .grayAlpha8, .rgb8, .rgba8, .gray16, .grayAlpha16, .rgb16, .rgba16]

    /// Tight rows of an image, for comparing images whose row padding differs.
    static func tight(_ image: Image) -> [UInt8] {
        let row = image.width * image.pixelFormat.bytesPerPixel
        return (0..<image.height).flatMap { image.pixels[($0 * image.bytesPerRow)..<($0 * image.bytesPerRow + row)] }
    }

    @Test("lossless round trip keeps format and every sample", arguments: formats, [TIFFCoder.Compression.deflate, .lzw])
    func roundTripIsExact(_ format: PixelFormat, _ compression: TIFFCoder.Compression) throws {
        let coder = TIFFCoder(compression: compression)
        for padding in [0, 5] {
            let image = try Self.pattern(format, padding: padding)
            let data = try coder.encode(image, as: .tiff, options: EncodeOptions())
            #expect(ImageFormat.sniff(data) == .tiff)
            let decoded = try coder.decode(data, options: DecodeOptions(preserve16Bit: true))
            #expect(decoded.pixelFormat == format && decoded.width == image.width && decoded.height == image.height)
            #expect(Self.tight(decoded) == Self.tight(image), "\(format) \(compression) padding \(padding)")
        }
    }

    @Test func iccProfileIsKept() throws {
        let profile = [UInt8]((0..<3000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        var image = try Self.pattern(.rgb8)
        image.iccProfile = profile
        let decoded = try TIFFCoder().decode(try TIFFCoder().encode(image, as: .tiff, options: EncodeOptions()), options: DecodeOptions(preserve16Bit: true))
        #expect(decoded.iccProfile == profile)
        let none = try TIFFCoder().decode(try TIFFCoder().encode(try Self.pattern(.rgb8), as: .tiff, options: EncodeOptions()), options: DecodeOptions(preserve16Bit: true))
        #expect(none.iccProfile == nil)
    }

    @Test func largeImageSpansManyStrips() throws {
        let image = try Self.pattern(.rgba16, width: 700, height: 300)
        let decoded = try TIFFCoder().decode(try TIFFCoder().encode(image, as: .tiff, options: EncodeOptions()), options: DecodeOptions(preserve16Bit: true))
        #expect(decoded.pixels == image.pixels)
    }

    @Test func premultipliedAlphaIsWrittenAsAssociatedAndComesBackStraight() throws {
        // 50% alpha over (200, 100, 0) stored premultiplied.
        let pixels = [UInt8](repeating: 0, count: 0) + (0..<16).flatMap { _ in [UInt8(100), 50, 0, 128] }
        let image = try Image(width: 4, height: 4, pixelFormat: .rgba8Premultiplied, pixels: pixels)
        let decoded = try TIFFCoder().decode(try TIFFCoder().encode(image, as: .tiff, options: EncodeOptions()), options: DecodeOptions(preserve16Bit: true))
        #expect(decoded.pixelFormat == .rgba8)
        #expect(Array(decoded.pixels.prefix(4)) == [199, 99, 0, 128])
    }

    @Test func otherFormatsAreRefused() {
        let error = #expect(throws: ImageKernelError.self) {
            try TIFFCoder().encode(try Self.pattern(.rgb8), as: .png, options: EncodeOptions())
        }
        #expect(error?.code == .unsupported && error?.stage == .encode)
    }
}
