import AnimationReference
import CoderWebP
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("WebP animation")
struct AnimationTests {
    let coder = WebPCoder()

    @Test func firstFrameOnlyDecodesOneFrame() throws {
        let data = try TestData.data("webp/pillow/iss634.webp")
        let all = try coder.decode(data, options: DecodeOptions())
        let first = try coder.decode(data, options: DecodeOptions(firstFrameOnly: true))
        #expect(all.frameCount == 42 && first.frameCount == 1)
        #expect(first.pixels == all.pixels)
        #expect(first.loopCount == 0)
    }

    @Test func budgetRefusesBeforeDecoding() throws {
        let data = try TestData.data("webp/pillow/iss634.webp")  // 42 frames of 245x245
        let frames = #expect(throws: ImageKernelError.self) { try coder.decode(data, options: DecodeOptions(maxFrameCount: 41)) }
        #expect(frames?.code == .pixelLimitExceeded)
        let pixels = #expect(throws: ImageKernelError.self) {
            try coder.decode(data, options: DecodeOptions(animationPixelLimit: 42 * 245 * 245 - 1))
        }
        #expect(pixels?.code == .pixelLimitExceeded)
        #expect(try coder.decode(data, options: DecodeOptions(animationPixelLimit: 42 * 245 * 245)).frameCount == 42)
        #expect(try coder.decode(data, options: DecodeOptions(firstFrameOnly: true, maxFrameCount: 1)).frameCount == 1)
    }
}
