import CoderHEIF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("HEIF decode options and metadata")
struct DecodeOptionsTests {
    let coder = HEIFCoder()

    @Test("10- and 12-bit files keep 16 bits with preserve16Bit", arguments: ["RGB_10__128x128", "RGBA_12__29x100", "L_10__128x128"])
    func sixteenBit(_ name: String) throws {
        let data = try TestData.data("heif/pillow_heif/\(name).heif")
        let narrow = try coder.decode(data, options: DecodeOptions())
        let wide = try coder.decode(data, options: DecodeOptions(preserve16Bit: true))
        #expect(narrow.pixelFormat.bitsPerComponent == 8 && wide.pixelFormat.bitsPerComponent == 16)
        #expect(wide.pixelFormat.layout == narrow.pixelFormat.layout)
        // The high byte of each 16-bit sample is the 8-bit decode, give or take rounding.
        let high = wide.rgba8Pixels(), low = narrow.rgba8Pixels()
        #expect(high.count == low.count)
        #expect(zip(high, low).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        // Full range: the brightest sample reaches the top of the 16-bit scale, not 2^bits.
        let samples = wide.pixels.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
        #expect(samples.max()! > 0xF000)
    }

    @Test("monochrome files decode to gray", arguments: [
        ("heif/pillow_heif/L_8__128x128.heif", PixelFormat.gray8), ("heif/pillow_heif/LA_8__29x100.heif", .grayAlpha8),
        ("heif/av1-avif-Link-U/fox.profile0.8bpc.yuv420.monochrome.avif", .gray8), ("heif/pillow_heif/RGB_8__29x100.heif", .rgb8),
        ("heif/libheif/tests-data/with-alpha-512x512.heic", .rgba8),
    ])
    func monochromeIsGray(_ path: String, _ format: PixelFormat) throws {
        #expect(try coder.decode(TestData.data(path), options: DecodeOptions()).pixelFormat == format)
    }

    @Test func eightBitFilesStayEightBitWithPreserve16Bit() throws {
        let image = try coder.decode(TestData.data("heif/libheif/example.heic"), options: DecodeOptions(preserve16Bit: true))
        #expect(image.pixelFormat == .rgb8)
    }

    @Test func alphaIsStraightAndFormatIsSniffed() throws {
        let heic = try coder.decode(TestData.data("heif/libheif/tests-data/with-alpha-512x512.heic"), options: DecodeOptions())
        #expect(heic.pixelFormat == .rgba8 && !heic.pixelFormat.isPremultiplied && heic.sourceFormat == .heic)
        let avif = try coder.decode(TestData.data("heif/libheif/example.avif"), options: DecodeOptions())
        #expect(avif.sourceFormat == .avif && avif.pixelFormat == .rgb8)
    }

    @Test func exifIsCarriedAndNotApplied() throws {
        let image = try coder.decode(TestData.data("heif/pillow/exif.avif"), options: DecodeOptions())
        let exif = try #require(image.exif)
        #expect(exif.starts(with: [0x49, 0x49, 0x2A, 0x00]) || exif.starts(with: [0x4D, 0x4D, 0x00, 0x2A]))
        #expect(image.orientation == .up)
    }

    @Test func rotatedAndCroppedFilesReportTheirTransformedSize() throws {
        let rotated = try coder.decode(TestData.data("heif/av1-avif-Link-U/kimono.rotate90.avif"), options: DecodeOptions())
        #expect(rotated.width == 722 && rotated.height == 1024 && rotated.orientation == .up)
        let cropped = try coder.decode(TestData.data("heif/av1-avif-Link-U/kimono.crop.avif"), options: DecodeOptions())
        #expect(cropped.width == 385 && cropped.height == 330)
    }
}
