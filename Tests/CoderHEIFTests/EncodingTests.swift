import CoderHEIF
import Foundation
import ImageKernel
import Testing

@Suite("HEIF encode")
struct EncodingTests {
    let coder = HEIFCoder()

    @Test func encodersOfThisLibheifAreReported() {
        #expect(coder.canEncode(.heic))
        #expect(coder.canEncode(.avif))
        #expect(!coder.canEncode(.heif) && !coder.canEncode(.png))
    }

    @Test("lossless AVIF and HEIC give back the exact pixels", arguments: [(ImageFormat.avif, false), (.avif, true), (.heic, false), (.heic, true)])
    func losslessIsExact(format: ImageFormat, alpha: Bool) throws {
        let image = try Fixtures.gradient(width: 96, height: 64, alpha: alpha)
        let data = try coder.encode(image, as: format, options: EncodeOptions(lossless: true))
        #expect(ImageFormat.sniff(data) == format)
        let back = try coder.decode(data, options: DecodeOptions())
        #expect(back.pixelFormat.hasAlpha == alpha)
        let same = back.rgba8Pixels() == image.rgba8Pixels()
        #expect(same, "lossless \(format) changed pixels")
    }

    @Test("lossy HEIC and AVIF stay close at quality 0.9", arguments: [ImageFormat.heic, .avif])
    func lossyRoundTripIsClose(_ format: ImageFormat) throws {
        let image = try Fixtures.gradient(width: 160, height: 120, alpha: true)
        let data = try coder.encode(image, as: format, options: EncodeOptions(quality: 0.9))
        #expect(ImageFormat.sniff(data) == format)
        let back = try coder.decode(data, options: DecodeOptions())
        #expect(back.width == 160 && back.height == 120 && back.pixelFormat == .rgba8)
        let psnr = Fixtures.psnr(image, back)
        #expect(psnr >= 38, "\(format) PSNR \(psnr) dB")
    }

    @Test func lowerQualityGivesFewerBytes() throws {
        let image = try Fixtures.gradient(width: 256, height: 256)
        let small = try coder.encode(image, as: .heic, options: EncodeOptions(quality: 0.2))
        let large = try coder.encode(image, as: .heic, options: EncodeOptions(quality: 0.95))
        #expect(small.count < large.count)
    }

    @Test func iccProfileAndExifAreWrittenAndRead() throws {
        var image = try Fixtures.gradient(width: 64, height: 48)
        image.iccProfile = Array(repeating: 7, count: 200)
        // A minimal big-endian TIFF header with no entries.
        image.exif = [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0, 0, 0, 0]
        let back = try coder.decode(coder.encode(image, as: .avif, options: EncodeOptions(metadata: .all)), options: DecodeOptions())
        #expect(back.iccProfile == image.iccProfile)
        #expect(back.exif == image.exif)
        #expect(back.orientation == .up)
    }

    @Test func grayAndSixteenBitImagesEncode() throws {
        let gray = try Image(width: 32, height: 32, pixelFormat: .gray8, pixels: (0..<1024).map { UInt8($0 % 256) })
        let back = try coder.decode(coder.encode(gray, as: .avif, options: EncodeOptions(lossless: true)), options: DecodeOptions())
        let same = back.rgba8Pixels() == gray.rgba8Pixels()
        #expect(same, "lossless gray changed")
        let wide = try Image(width: 16, height: 16, pixelFormat: .rgb16, pixels: [UInt8](repeating: 0x80, count: 16 * 16 * 6))
        #expect(try coder.decode(coder.encode(wide, as: .heic, options: EncodeOptions()), options: DecodeOptions()).width == 16)
    }

    @Test func unknownFormatIsUnsupported() throws {
        let image = try Fixtures.gradient(width: 8, height: 8)
        do {
            _ = try coder.encode(image, as: .gif, options: EncodeOptions())
            Issue.record("encoded GIF")
        } catch {
            #expect(error.code == .unsupported && error.stage == .encode)
        }
    }
}
