import Foundation
import ImageKernel

extension ImageCoder {
    /// Checks a coder's ``DecodeOptions/FramesOverLimit/keepFirst``: decodes `data` whole (with
    /// `options` and every frame allowed), then with `maxFrameCount` = `keep` and `keepFirst`, and
    /// compares. The kept decode must hold exactly the whole one's first `keep` frames (all of
    /// them when there are fewer): the same pixels and durations, and the loop count when it is
    /// still an animation.
    ///
    /// - Returns: nil when it does, else a sentence saying what differs.
    public func firstFramesKeptMismatch(_ data: Data, keep: Int, options: DecodeOptions = DecodeOptions()) throws(ImageKernelError) -> String? {
        var all = options
        all.maxFrameCount = .max
        all.framesOverLimit = .fail
        let whole = try decode(data, options: all)
        var limited = options
        limited.maxFrameCount = keep
        limited.framesOverLimit = .keepFirst
        let kept = try decode(data, options: limited)
        let expected = Array(whole.allFrames.prefix(keep))
        guard kept.frameCount == expected.count else { return "\(kept.frameCount) frames kept, expected \(expected.count)" }
        for (index, (got, want)) in zip(kept.allFrames, expected).enumerated() {
            guard got.image.width == want.image.width, got.image.height == want.image.height, got.image.pixels == want.image.pixels else {
                return "frame \(index): other pixels than the whole decode's"
            }
            if expected.count > 1 && got.duration != want.duration { return "frame \(index): \(got.duration) s, expected \(want.duration) s" }
        }
        if kept.isAnimated && kept.loopCount != whole.loopCount { return "loop count \(String(describing: kept.loopCount)), expected \(String(describing: whole.loopCount))" }
        return nil
    }
}
