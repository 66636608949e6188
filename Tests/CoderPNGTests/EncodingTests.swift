import CoderPNG
import Foundation
import ImageKernel
import Testing

@Suite("Encoding PNG")
struct EncodingTests {
    let coder = PNGCoder()

    static let formats: [PixelFormat] = [.gray8, .grayAlpha8, .rgb8, .rgba8, .gray16, .grayAlpha16, .rgb16, .rgba16]

    @Test("every layout at 8 and 16 bits survives a round trip", arguments: formats)
    func roundTripKeepsEveryPixel(_ format: PixelFormat) throws {
        let image = try makeImage(width: 37, height: 23, format: format)
        let data = try coder.encode(image, as: .png, options: EncodeOptions())
        #expect(ImageFormat.sniff(data) == .png)
        #expect(PNGChunks(data).bitDepth == format.bitsPerComponent)
        let decoded = try coder.decode(data, options: DecodeOptions(preserve16Bit: true))
        #expect(decoded.pixelFormat == format)
        #expect(decoded.pixels == image.pixels)
    }

    @Test func sixteenBitSamplesAreWrittenBigEndianFromHostOrder() throws {
        var pixels: [UInt8] = []
        withUnsafeBytes(of: UInt16(0x1234)) { pixels += $0 }
        let image = try Image(width: 1, height: 1, pixelFormat: .gray16, pixels: pixels)
        let data = try coder.encode(image, as: .png, options: EncodeOptions())
        let eight = try coder.decode(data, options: DecodeOptions())
        #expect(eight.pixels == [0x12])
    }

    @Test func higherCompressionLevelGivesSmallerFileWithSamePixels() throws {
        let image = try makeImage(width: 256, height: 128, format: .rgb8)
        let fast = try coder.encode(image, as: .png, options: EncodeOptions(compressionLevel: 0))
        let best = try coder.encode(image, as: .png, options: EncodeOptions(compressionLevel: 9))
        #expect(best.count < fast.count)
        #expect(fast.count >= image.pixels.count)  // level 0 stores
        #expect(try coder.decode(fast, options: DecodeOptions()).pixels == image.pixels)
        #expect(try coder.decode(best, options: DecodeOptions()).pixels == image.pixels)
    }

    @Test func progressiveOptionWritesAdam7() throws {
        let image = try makeImage(width: 33, height: 17, format: .rgba8)
        let plain = try coder.encode(image, as: .png, options: EncodeOptions())
        let interlaced = try coder.encode(image, as: .png, options: EncodeOptions(progressive: true))
        #expect(PNGChunks(plain).chunk("IHDR")?[12] == 0)
        #expect(PNGChunks(interlaced).chunk("IHDR")?[12] == 1)
        #expect(try coder.decode(interlaced, options: DecodeOptions()).pixels == image.pixels)
    }

    @Test func iccProfileIsWrittenAndReadBack() throws {
        var image = try makeImage(width: 8, height: 8, format: .rgb8)
        image.iccProfile = minimalICCProfile(colorSpace: "RGB ")
        let data = try coder.encode(image, as: .png, options: EncodeOptions())
        #expect(PNGChunks(data).chunk("iCCP") != nil)
        #expect(try coder.decode(data, options: DecodeOptions()).iccProfile == image.iccProfile)
    }

    @Test func invalidICCProfileIsDroppedNotFatal() throws {
        var image = try makeImage(width: 8, height: 8, format: .gray8)
        image.iccProfile = minimalICCProfile(colorSpace: "RGB ")  // an RGB profile on a gray image
        let data = try coder.encode(image, as: .png, options: EncodeOptions())
        #expect(PNGChunks(data).chunk("iCCP") == nil)
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(decoded.pixels == image.pixels)
        #expect(decoded.iccProfile == nil)
    }

    @Test func premultipliedAlphaIsStoredStraight() throws {
        let image = try Image(width: 2, height: 1, pixelFormat: .rgba8Premultiplied, pixels: [100, 50, 0, 128, 9, 9, 9, 0])
        let decoded = try coder.decode(coder.encode(image, as: .png, options: EncodeOptions()), options: DecodeOptions())
        #expect(decoded.pixelFormat == .rgba8)
        #expect(decoded.pixels == [199, 100, 0, 128, 0, 0, 0, 0])
    }

    @Test func paddedRowsAreEncodedWithoutThePadding() throws {
        let pixels: [UInt8] = [1, 2, 3, 0xEE, 4, 5, 6, 0xEE]
        let image = try Image(width: 1, height: 2, pixelFormat: .rgb8, bytesPerRow: 4, pixels: pixels)
        let decoded = try coder.decode(coder.encode(image, as: .png, options: EncodeOptions()), options: DecodeOptions())
        #expect(decoded.pixels == [1, 2, 3, 4, 5, 6])
    }

    @Test func onlyPNGIsEncoded() throws {
        #expect(coder.canEncode(.png))
        #expect(!coder.canEncode(.jpeg))
        let image = try makeImage(width: 2, height: 2, format: .rgb8)
        let error = kernelError { () throws(ImageKernelError) in try coder.encode(image, as: .jpeg, options: EncodeOptions()) }
        #expect(error?.code == .unsupported)
        #expect(error?.stage == .encode)
    }

    @Test func aBufferShorterThanTheImageIsRefused() throws {
        var image = try makeImage(width: 4, height: 4, format: .rgba8)
        image.pixels.removeLast(5)
        let error = kernelError { () throws(ImageKernelError) in try coder.encode(image, as: .png, options: EncodeOptions()) }
        #expect(error?.code == .invalidArgument)
    }

    @Test func registryEncodesAndDecodesThroughTheCoder() throws {
        let registry = CoderRegistry()
        PNGCoder.register(into: registry)
        let image = try makeImage(width: 5, height: 3, format: .grayAlpha8)
        let data = try registry.encode(image, as: .png)
        let decoded = try registry.decode(data)
        #expect(decoded.pixels == image.pixels)
        #expect(registry.coder(forDecoding: data)?.name == "CoderPNG")
    }
}
