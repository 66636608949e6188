import CoderPNG
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

@Suite("Decode output formats, options and metadata")
struct DecodeOptionsTests {
    let coder = PNGCoder()

    static let formatsByFile: [(String, PixelFormat)] = [
        ("pngsuite/basn0g01.png", .gray8), ("pngsuite/basn0g02.png", .gray8), ("pngsuite/basn0g04.png", .gray8),
        ("pngsuite/basn0g08.png", .gray8), ("pngsuite/basn0g16.png", .gray8), ("pngsuite/basn4a08.png", .grayAlpha8),
        ("pngsuite/basn2c08.png", .rgb8), ("pngsuite/basn6a08.png", .rgba8), ("pngsuite/basn3p08.png", .rgb8),
        ("pngsuite/basn3p01.png", .rgb8), ("pngsuite/tbbn3p08.png", .rgba8), ("pngsuite/tbbn0g04.png", .grayAlpha8),
        ("pngsuite/tbrn2c08.png", .rgba8), ("pngsuite/tbbn2c16.png", .rgba8), ("pngsuite/basi6a16.png", .rgba8),
    ]

    @Test("each colour type decodes to its kernel pixel format", arguments: formatsByFile)
    func colourTypeMapsToPixelFormat(_ path: String, _ format: PixelFormat) throws {
        #expect(try coder.decode(TestData.data(path), options: DecodeOptions()).pixelFormat == format)
    }

    static let sixteenBitFiles: [(String, PixelFormat)] = [
        ("pngsuite/basn0g16.png", .gray16), ("pngsuite/basn4a16.png", .grayAlpha16), ("pngsuite/basn2c16.png", .rgb16),
        ("pngsuite/basn6a16.png", .rgba16), ("pngsuite/tbwn0g16.png", .grayAlpha16), ("pngsuite/tbbn2c16.png", .rgba16),
        ("pngsuite/basn3p08.png", .rgb8), ("pngsuite/basn0g04.png", .gray8),
    ]

    @Test("preserve16Bit keeps 16-bit files at 16 bits, in host byte order", arguments: sixteenBitFiles)
    func preserve16BitKeepsHostOrderSamples(_ path: String, _ format: PixelFormat) throws {
        let data = try TestData.data(path)
        let wide = try coder.decode(data, options: DecodeOptions(preserve16Bit: true))
        let narrow = try coder.decode(data, options: DecodeOptions())
        #expect(wide.pixelFormat == format)
        // Host-order high bytes are exactly what strip_16 keeps.
        #expect(wide.rgba8Pixels() == narrow.rgba8Pixels())
        if format.bitsPerComponent == 16 {
            let samples = wide.pixels.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
            #expect(samples.contains { $0 & 0xFF != $0 >> 8 }, "the low bytes carry information")
        }
    }

    @Test func pixelLimitIsEnforcedFromTheHeader() throws {
        let data = try TestData.data("pngsuite/basn2c08.png")  // 32×32
        let refused = kernelError { () throws(ImageKernelError) in try coder.decode(data, options: DecodeOptions(pixelLimit: 1023)) }
        #expect(refused?.code == .pixelLimitExceeded)
        #expect(refused?.plugin == "CoderPNG")
        #expect(try coder.decode(data, options: DecodeOptions(pixelLimit: 1024)).pixelCount == 1024)
    }

    @Test func decompressionBombHeaderIsRefusedBeforeDecoding() throws {
        // 100 000 × 100 000 RGB would need 30 GB; only the header is read.
        let bomb = pngDeclaring(width: 100_000, height: 100_000)
        let error = kernelError { () throws(ImageKernelError) in try coder.decode(bomb, options: DecodeOptions()) }
        #expect(error?.code == .pixelLimitExceeded)
        let progressive = coder.makeProgressiveDecoder(options: DecodeOptions())
        #expect(kernelError { () throws(ImageKernelError) in try progressive.append(bomb) }?.code == .pixelLimitExceeded)
    }

    @Test func aSideLongerThanThePixelLimitIsRefusedAsALimit() throws {
        let wide = pngDeclaring(width: 5000, height: 1)
        let error = kernelError { () throws(ImageKernelError) in try coder.decode(wide, options: DecodeOptions(pixelLimit: 4000)) }
        #expect(error?.code == .pixelLimitExceeded)
        #expect(error?.message.contains("user limit") == true)
    }

    @Test func thumbnailFitsInsideTheRequestedSizeKeepingAspectRatio() throws {
        let image = try makeImage(width: 200, height: 100, format: .rgb8)
        let data = try coder.encode(image, as: .png, options: EncodeOptions())
        let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 40, height: 40)))
        #expect(thumbnail.width == 40 && thumbnail.height == 20)
        #expect(thumbnail.sourceFormat == .png)
        let tall = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 10)))
        #expect(tall.width == 20 && tall.height == 10)
    }

    @Test func thumbnailNeverEnlarges() throws {
        let data = try TestData.data("pngsuite/basn6a08.png")
        let image = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 500, height: 40)))
        #expect(image.width == 32 && image.height == 32)
        #expect(image == (try coder.decode(data, options: DecodeOptions())))
    }

    @Test func thumbnailAveragesEachBox() throws {
        // Four 2×2 blocks of solid colour reduce to exactly those colours.
        let colours: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [10, 20, 30]]
        var pixels: [UInt8] = []
        for y in 0..<4 { for x in 0..<4 { pixels += colours[(y / 2) * 2 + x / 2] } }
        let data = try coder.encode(try Image(width: 4, height: 4, pixelFormat: .rgb8, pixels: pixels), as: .png, options: EncodeOptions())
        let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 2, height: 2)))
        #expect(thumbnail.pixels == colours.flatMap { $0 })
        // A 2×2 checker of black and white averages to mid gray.
        let checker = try Image(width: 2, height: 2, pixelFormat: .gray8, pixels: [0, 255, 255, 0])
        let gray = try coder.decode(coder.encode(checker, as: .png, options: EncodeOptions()), options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 1, height: 1)))
        #expect(gray.pixels == [128])
    }

    @Test func thumbnailWeighsColourByAlpha() throws {
        let red: [UInt8] = [255, 0, 0, 255], clearGreen: [UInt8] = [0, 255, 0, 0]
        let image = try Image(width: 2, height: 2, pixelFormat: .rgba8, pixels: red + clearGreen + clearGreen + red)
        let data = try coder.encode(image, as: .png, options: EncodeOptions())
        let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 1, height: 1)))
        #expect(thumbnail.pixels == [255, 0, 0, 128])
    }

    @Test func sixteenBitThumbnailStaysSixteenBit() throws {
        let image = try makeImage(width: 64, height: 32, format: .rgba16)
        let data = try coder.encode(image, as: .png, options: EncodeOptions())
        let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 16, height: 8), preserve16Bit: true))
        #expect(thumbnail.pixelFormat == .rgba16 && thumbnail.width == 16 && thumbnail.height == 8)
    }

    @Test func exifOrientationIsReportedNotApplied() throws {
        let plain = try TestData.data("pngsuite/basn2c08.png")
        // A little-endian TIFF with one IFD entry: Orientation (0x0112) = 6.
        let tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00,
                             0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00,
                             0x00, 0x00, 0x00, 0x00]
        let rotated = inserting(pngChunk("eXIf", tiff), beforeIDATOf: plain)
        let image = try coder.decode(rotated, options: DecodeOptions())
        let original = try coder.decode(plain, options: DecodeOptions())
        #expect(image.orientation == .right)
        #expect(image.pixels == original.pixels && image.width == original.width)
        #expect(original.orientation == .up)
        #expect(try coder.decode(TestData.data("pngsuite/exif2c08.png"), options: DecodeOptions()).orientation == .up)
    }

    @Test func scaleIsRecorded() throws {
        let image = try coder.decode(TestData.data("pngsuite/basn0g08.png"), options: DecodeOptions(scale: 2))
        #expect(image.scale == 2)
    }

    @Test func sniffingUsesMagicBytesOnly() throws {
        #expect(coder.canDecode(try TestData.data("pngsuite/basn0g08.png")))
        #expect(!coder.canDecode(Data([0xFF, 0xD8, 0xFF, 0xE0])))
        #expect(!coder.canDecode(Data()))
        #expect(!coder.canDecode(try TestData.data("pngsuite/xs1n0g01.png")))  // bad signature
        #expect(coder.name == "CoderPNG")
    }

    @Test func emptyAndTinyInputsAreTruncated() throws {
        for bytes in [[], [0x89], Array(pngSignature), Array(pngSignature) + [0, 0, 0, 13]] as [[UInt8]] {
            let error = kernelError { () throws(ImageKernelError) in try coder.decode(Data(bytes), options: DecodeOptions()) }
            #expect(error?.code == .truncated, "\(bytes.count) bytes")
        }
    }

    @Test func newestRegisteredCoderDecodesFirst() throws {
        let registry = CoderRegistry()
        let token = PNGCoder.register(into: registry)
        let data = try TestData.data("pngsuite/basn6a08.png")
        #expect(try registry.decode(data).pixelFormat == .rgba8)
        #expect(registry.unregister(token))
        #expect(kernelError { () throws(ImageKernelError) in try registry.decode(data) }?.code == .noCoder)
    }
}
