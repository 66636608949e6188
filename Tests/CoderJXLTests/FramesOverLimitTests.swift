import CoderJXL
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// `DecodeOptions.framesOverLimit` on an animated JPEG XL, whole and fed in chunks: `keepFirst`
/// renders the first frames only; the default still refuses.
@Suite("JPEG XL: frames over the limit")
struct FramesOverLimitTests {
    let coder = JXLCoder()

    @Test func keepFirstRendersTheFirstFramesWithTheirDurations() throws {
        let data = try TestData.data("jxl/conformance/animation_icos4d.jxl")  // 48 frames of 128x128
        for keep in [1, 5, 48, 60] { #expect(try coder.firstFramesKeptMismatch(data, keep: keep) == nil, "keep \(keep)") }
        #expect(throws: ImageKernelError.self) { try coder.decode(data, options: DecodeOptions(maxFrameCount: 47)) }
    }

    @Test func theProgressiveDecoderKeepsTheFirstFramesToo() throws {
        let data = try TestData.data("jxl/libjxl-testdata/cropped_traffic_light.jxl")  // 4 frames
        let whole = try coder.decode(data, options: DecodeOptions())
        for keep in [1, 2, 4] {
            var options = DecodeOptions(maxFrameCount: keep)
            options.framesOverLimit = .keepFirst
            let images = try coder.imagesFedInChunks(data, chunk: 100, options: options)
            let last = try #require(images.last)
            #expect(last.frameCount == keep, "keep \(keep)")
            #expect(last.allFrames.map(\.image.pixels) == whole.allFrames.prefix(keep).map(\.image.pixels), "keep \(keep)")
        }
    }
}
