import AnimationReference
import CoderWebP
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("WebP incremental decoding")
struct ProgressiveDecodingTests {
    let coder = WebPCoder()

    @Test("chunks end in the full decode, with previews before it", arguments: [
        "webp/libwebp-test-data/lossy_alpha1.webp", "webp/libwebp-test-data/lossless1.webp", "webp/pillow/flower2.webp",
    ])
    func endsInTheFullDecode(_ path: String) throws {
        let data = try TestData.data(path)
        let images = try coder.imagesFedInChunks(data, chunk: 512)
        let full = try coder.decode(data, options: DecodeOptions())
        let last = try #require(images.last)
        #expect(!last.isPreview)
        #expect(last.pixels == full.pixels && last.pixelFormat == full.pixelFormat)
        #expect(last.iccProfile == full.iccProfile && last.orientation == full.orientation)
        #expect(images.dropLast().allSatisfy { $0.isPreview })
        #expect(images.count >= 3, "previews arrive while the bytes do")
    }

    @Test func byteByByteMatchesToo() throws {
        let data = try TestData.data("webp/libwebp-test-data/test.webp")
        let images = try coder.imagesFedInChunks(data, chunk: 1)
        #expect(images.last?.pixels == (try coder.decode(data, options: DecodeOptions())).pixels)
        #expect(images.count <= 40, "previews are rationed, not one per byte")
    }

    @Test func thumbnailsAreScaledWhileDecoding() throws {
        let data = try TestData.data("webp/libwebp-test-data/lossy_alpha1.webp")
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64))
        let images = try coder.imagesFedInChunks(data, chunk: 1000, options: options)
        let expected = try coder.decode(data, options: options)
        #expect(images.allSatisfy { $0.width == expected.width && $0.height == expected.height })
        #expect(images.last?.pixels == expected.pixels)
    }

    @Test func animationsDecodeWholeAtTheEnd() throws {
        let data = try TestData.data("webp/generated/anim_mixed_12f.webp")
        let images = try coder.imagesFedInChunks(data, chunk: 700)
        #expect(images.count == 1)
        #expect(images.first?.frameCount == 12 && images.first?.isPreview == false)
    }

    @Test func corruptDataKeepsThrowing() throws {
        var bytes = [UInt8](try TestData.data("webp/libwebp-test-data/test.webp"))
        for index in 40..<bytes.count { bytes[index] = 0xFF }
        let decoder = coder.makeProgressiveDecoder(options: DecodeOptions())
        #expect(throws: ImageKernelError.self) { _ = try decoder.append(Data(bytes)) }
        #expect(throws: ImageKernelError.self) { _ = try decoder.append(Data([0])) }
    }
}
