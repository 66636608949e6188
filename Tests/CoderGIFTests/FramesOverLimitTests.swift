import CoderGIF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// `DecodeOptions.framesOverLimit`: `keepFirst` decodes the first `maxFrameCount` frames of a
/// longer animation; the default still refuses it.
@Suite("GIF: frames over the limit")
struct FramesOverLimitTests {
    let coder = GIFCoder()
    static let chi = "gif/pillow/chi.gif"  // 31 frames of 320x240

    @Test func keepFirstDecodesTheFirstFramesWithTheirDurations() throws {
        let data = try TestData.data(Self.chi)
        for keep in [5, 30, 31, 40] { #expect(try coder.firstFramesKeptMismatch(data, keep: keep) == nil, "keep \(keep)") }
        var options = DecodeOptions(maxFrameCount: 5)
        options.framesOverLimit = .keepFirst
        let five = try coder.decode(data, options: options)
        #expect(five.frameCount == 5 && five.width == 320 && five.height == 240)
    }

    @Test func framesAfterTheOnesKeptAreNotRead() throws {
        // chi.gif cut inside frame 21: a whole decode fails, the first 5 or 21 frames decode.
        let whole = try TestData.data(Self.chi)
        let cut = whole.prefix(whole.count * 6 / 10)
        let error = #expect(throws: ImageKernelError.self) { try coder.decode(cut, options: DecodeOptions()) }
        #expect(error?.code == .truncated)
        let all = try coder.decode(whole, options: DecodeOptions())
        for keep in [5, 21] {
            var options = DecodeOptions(maxFrameCount: keep)
            options.framesOverLimit = .keepFirst
            let kept = try coder.decode(cut, options: options)
            #expect(kept.frameCount == keep && kept.allFrames.map(\.image.pixels) == all.allFrames.prefix(keep).map(\.image.pixels), "keep \(keep)")
        }
    }

    @Test func keepingOneFrameIsAStill() throws {
        var options = DecodeOptions(maxFrameCount: 1)
        options.framesOverLimit = .keepFirst
        let still = try coder.decode(try TestData.data(Self.chi), options: options)
        #expect(!still.isAnimated && still.width == 320)
        #expect(try coder.firstFramesKeptMismatch(try TestData.data(Self.chi), keep: 1) == nil)
    }

    @Test func thePixelBudgetCountsTheFramesKept() throws {
        let data = try TestData.data(Self.chi)
        var options = DecodeOptions(maxFrameCount: 5, animationPixelLimit: 5 * 320 * 240)
        options.framesOverLimit = .keepFirst
        #expect(try coder.decode(data, options: options).frameCount == 5)
        options.animationPixelLimit -= 1
        let error = #expect(throws: ImageKernelError.self) { try coder.decode(data, options: options) }
        #expect(error?.code == .pixelLimitExceeded)
    }

    @Test func theDefaultStillRefusesAnAnimationOverTheLimit() throws {
        let error = #expect(throws: ImageKernelError.self) { try coder.decode(try TestData.data(Self.chi), options: DecodeOptions(maxFrameCount: 30)) }
        #expect(error?.code == .pixelLimitExceeded && error?.plugin == coder.name)
    }
}
