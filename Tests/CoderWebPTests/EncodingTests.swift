import AnimationReference
import CoderWebP
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("WebP encoding")
struct EncodingTests {
    let coder = WebPCoder()

    private func gradient(_ width: Int, _ height: Int, alpha: Bool, seed: Int = 0) throws -> Image {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                pixels += [UInt8((x * 255 / width + seed) & 0xFF), UInt8(y * 255 / height), UInt8((x + y + seed * 3) & 0xFF)]
                if alpha { pixels.append(UInt8((x * 7 + y) & 0xFF)) }
            }
        }
        return try Image(width: width, height: height, pixelFormat: alpha ? .rgba8 : .rgb8, pixels: pixels)
    }

    @Test func losslessKeepsEveryByteIncludingRGBUnderZeroAlpha() throws {
        let image = try gradient(70, 33, alpha: true)
        let data = try coder.encode(image, as: .webp, options: EncodeOptions(lossless: true))
        #expect(Array(data[12..<16]) == Array("VP8L".utf8))
        #expect(try coder.decode(data, options: DecodeOptions()).pixels == image.pixels)
    }

    @Test func lossyQualityTradesSizeForFidelity() throws {
        let image = try gradient(128, 96, alpha: false)
        let low = try coder.encode(image, as: .webp, options: EncodeOptions(quality: 0.2))
        let high = try coder.encode(image, as: .webp, options: EncodeOptions(quality: 0.95))
        #expect(low.count < high.count)
        #expect(Array(high[12..<16]) == Array("VP8 ".utf8))
        let decoded = try coder.decode(high, options: DecodeOptions())
        #expect(decoded.pixelFormat == .rgb8)
        let error = zip(decoded.pixels, image.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        #expect(Double(error) / Double(image.pixels.count) < 4)
    }

    @Test func lossyAlphaKeepsAnAlphaChannel() throws {
        let image = try gradient(64, 64, alpha: true)
        let decoded = try coder.decode(try coder.encode(image, as: .webp, options: EncodeOptions(quality: 0.9)), options: DecodeOptions())
        #expect(decoded.pixelFormat == .rgba8)
        let alphaError = stride(from: 3, to: image.pixels.count, by: 4).map { abs(Int(decoded.pixels[$0]) - Int(image.pixels[$0])) }.max() ?? 255
        #expect(alphaError <= 2, "ALPH is lossless by default")
    }

    @Test func animationRoundTripKeepsFramesDurationsAndLoop() throws {
        let frames = try (0..<4).map { ImageFrame(image: try gradient(48, 32, alpha: true, seed: $0 * 40).convertedToRGBA8(), duration: [0.1, 0.05, 0.25, 0.04][$0]) }
        let animation = try Image(animating: frames, loopCount: 5)
        let data = try coder.encode(animation, as: .webp, options: EncodeOptions(lossless: true))
        let decoded = try coder.decode(data, options: DecodeOptions())
        #expect(decoded.frameCount == 4)
        #expect(decoded.loopCount == 5)
        #expect(decoded.allFrames.map(\.duration) == [0.1, 0.05, 0.25, 0.04])
        // WebPAnimEncoder may drop RGB under alpha 0 when it crops frames; compare what shows.
        for (a, b) in zip(decoded.allFrames, frames) {
            #expect(rgba8(a.image, zeroingTransparentRGB: true) == rgba8(b.image, zeroingTransparentRGB: true))
        }
    }

    @Test func animatedFilesRoundTripThroughTheirOwnDecode() throws {
        let original = try coder.decode(try TestData.data("webp/generated/anim_lossless_alpha.webp"), options: DecodeOptions())
        let again = try coder.decode(try coder.encode(original, as: .webp, options: EncodeOptions(lossless: true)), options: DecodeOptions())
        #expect(again.frameCount == original.frameCount && again.loopCount == original.loopCount)
        #expect(again.allFrames.map(\.duration) == original.allFrames.map(\.duration))
        #expect(allFramesHash(again, zeroingTransparentRGB: true) == allFramesHash(original, zeroingTransparentRGB: true))
    }

    @Test func framesOfAnotherSizeAreRefused() throws {
        var image = try gradient(8, 8, alpha: true)
        image.frames = [ImageFrame(image: try gradient(4, 4, alpha: true), duration: 0.1)]
        let error = #expect(throws: ImageKernelError.self) { try coder.encode(image, as: .webp, options: EncodeOptions()) }
        #expect(error?.code == .invalidArgument && error?.stage == .encode)
    }

    @Test func otherFormatsAreRefused() throws {
        let error = #expect(throws: ImageKernelError.self) { try coder.encode(try gradient(2, 2, alpha: false), as: .png, options: EncodeOptions()) }
        #expect(error?.code == .unsupported)
    }
}
