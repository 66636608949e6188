import AnimationReference
import CoderBMP
import CoderPNG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("BMP and ICO encoding")
struct EncodingTests {
    /// A deterministic `width`×`height` image with every byte varied, alpha included.
    static func noise(width: Int, height: Int, format: PixelFormat) throws -> Image {
        var state: UInt32 = 12345
        let pixels = (0..<(width * height * format.bytesPerPixel)).map { _ -> UInt8 in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16)
        }
        return try Image(width: width, height: height, pixelFormat: format, pixels: pixels)
    }

    @Test(arguments: [(PixelFormat.rgb8, 24), (.rgba8, 32)])
    func bmpRoundTripIsExact(_ format: PixelFormat, _ bits: Int) throws {
        let coder = BMPCoder()
        for (width, height) in [(1, 1), (3, 5), (127, 64), (300, 7)] {
            let image = try Self.noise(width: width, height: height, format: format)
            let data = try coder.encode(image, as: .bmp, options: EncodeOptions())
            #expect(ImageFormat.sniff(data) == .bmp)
            #expect(Int(data[28]) == bits, "bits per pixel")
            let decoded = try coder.decode(data, options: DecodeOptions())
            #expect(decoded.pixelFormat == format && decoded.width == width && decoded.height == height)
            #expect(sha256Hex(decoded.pixels) == sha256Hex(image.pixels), "\(width)x\(height)")
        }
    }

    @Test func bmpCarriesTheICCProfile() throws {
        var image = try Self.noise(width: 9, height: 4, format: .rgba8)
        let profile = [UInt8](try TestData.data("bmp/bmpsuite/q/rgb24prof.bmp").suffix(3048))
        image.iccProfile = profile
        let decoded = try BMPCoder().decode(try BMPCoder().encode(image, as: .bmp, options: EncodeOptions()), options: DecodeOptions())
        #expect(decoded.iccProfile == profile)
        #expect(sha256Hex(decoded.pixels) == sha256Hex(image.pixels))
    }

    @Test(arguments: [true, false])
    func icoRoundTripIsExact(_ withPNG: Bool) throws {
        let coder = BMPCoder(pngCoder: withPNG ? PNGCoder() : nil)
        let image = try Self.noise(width: 64, height: 40, format: .rgba8)
        let data = try coder.encode(image, as: .ico, options: EncodeOptions())
        #expect(ImageFormat.sniff(data) == .ico)
        #expect(Array(data.prefix(6)) == [0, 0, 1, 0, 4, 0], "16, 32, 48 and the image itself (64): four entries")
        let entryStart = Int(data[18]) | Int(data[19]) << 8
        #expect((data[entryStart] == 0x89) == withPNG, "PNG entries with a PNG coder, BMP entries without")
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(decoded.width == 64 && decoded.height == 40)
        #expect(sha256Hex(decoded.pixels) == sha256Hex(image.pixels), "the largest entry is the image itself")
        var all = DecodeOptions()
        all.allPages = true
        let entries = try coder.decode(data, options: all).allFrames.map { PixelSize(width: $0.image.width, height: $0.image.height) }
        #expect(entries.map(\.description) == ["16x10", "32x20", "48x30", "64x40"])
    }

    @Test func icoOfALargeImageHoldsTheDefaultSizes() throws {
        let coder = BMPCoder(pngCoder: PNGCoder())
        let image = try Self.noise(width: 600, height: 600, format: .rgb8)
        var all = DecodeOptions()
        all.allPages = true
        let decoded = try coder.decode(try coder.encode(image, as: .ico, options: EncodeOptions()), options: all)
        #expect(decoded.allFrames.map(\.image.width) == [16, 32, 48, 256])
        let custom = BMPCoder(pngCoder: PNGCoder(), icoSizes: [24, 64])
        #expect(try custom.decode(try custom.encode(image, as: .ico, options: EncodeOptions()), options: all).allFrames.map(\.image.width) == [24, 64, 256])
    }

    @Test func thumbnailsPickTheEntryThatCoversTheBox() throws {
        let coder = BMPCoder(pngCoder: PNGCoder())
        let data = try TestData.data("ico/pillow/pillow.ico")  // 256, 48, 32, 24 and 16, in that order
        #expect(try coder.decode(data, options: DecodeOptions()).width == 256)
        let exact = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 48, height: 48)))
        #expect(exact.width == 48 && exact.decoderNotes[Image.MetadataKey.thumbnailSource] == nil, "the 48 entry as it is")
        let between = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 40, height: 40)))
        #expect(between.width == 40 && between.decoderNotes[Image.MetadataKey.thumbnailSource] == "downscaled", "the 48 entry scaled")
        var all = DecodeOptions()
        all.allPages = true
        let frames = try coder.decode(data, options: all).allFrames
        #expect(frames.map(\.image.width) == [256, 48, 32, 24, 16], "file order")
        #expect(frames.count == 5 && sha256Hex(frames[1].image.pixels) == sha256Hex(exact.pixels), "the 48 entry")
    }

    @Test func pngEntriesNeedAPNGCoder() throws {
        let error = #expect(throws: ImageKernelError.self) { try BMPCoder().decode(try TestData.data("ico/pillow/pillow.ico"), options: DecodeOptions()) }
        #expect(error?.code == .unsupported && error?.plugin == "CoderBMP")
        let registry = CoderRegistry([PNGCoder()])
        BMPCoder.register(into: registry)
        #expect(try registry.decode(try TestData.data("ico/pillow/pillow.ico")).width == 256)
    }
}
