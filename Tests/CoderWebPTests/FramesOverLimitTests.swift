import CoderWebP
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// `DecodeOptions.framesOverLimit` on an animated WebP: `keepFirst` decodes the first frames
/// only (libwebp decodes on demand); the default still refuses.
@Suite("WebP: frames over the limit")
struct FramesOverLimitTests {
    @Test func keepFirstDecodesTheFirstFramesWithTheirDurations() throws {
        let coder = WebPCoder()
        let data = try TestData.data("webp/pillow/iss634.webp")  // 42 frames of 245x245
        for keep in [1, 5, 42, 50] { #expect(try coder.firstFramesKeptMismatch(data, keep: keep) == nil, "keep \(keep)") }
        var options = DecodeOptions(maxFrameCount: 5, animationPixelLimit: 5 * 245 * 245)
        options.framesOverLimit = .keepFirst
        #expect(try coder.decode(data, options: options).frameCount == 5)
        options.animationPixelLimit -= 1
        #expect(throws: ImageKernelError.self) { try coder.decode(data, options: options) }
        #expect(throws: ImageKernelError.self) { try coder.decode(data, options: DecodeOptions(maxFrameCount: 5)) }
    }
}
