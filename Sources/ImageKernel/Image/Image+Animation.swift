extension Image {
    /// Frames in display order, this image first (with ``duration``), then ``frames``.
    public var allFrames: [ImageFrame] {
        var first = self
        first.frames = []
        return [ImageFrame(image: first, duration: duration)] + frames
    }

    /// Number of frames: 1 for a still image.
    public var frameCount: Int { 1 + frames.count }

    /// Whether the image has more than one frame.
    public var isAnimated: Bool { !frames.isEmpty }

    /// The first frame's pixels with `frames` as the frames after it: frame 0's duration becomes
    /// ``duration``; the loop count is kept. `frames` must not be empty.
    public init(animating frames: [ImageFrame], loopCount: Int?) throws(ImageKernelError) {
        guard var first = frames.first?.image else {
            throw ImageKernelError(stage: .decode, code: .invalidArgument, message: "an animation needs at least one frame")
        }
        first.frames = Array(frames.dropFirst())
        first.duration = frames[0].duration
        first.loopCount = loopCount
        self = first
    }
}

extension DecodeOptions {
    /// Checks an animation's declared size against ``maxFrameCount`` and ``animationPixelLimit``
    /// (frame count × canvas pixels) before any frame is decoded, and says how many frames to
    /// decode: all `frameCount`, or with ``FramesOverLimit/keepFirst`` at most ``maxFrameCount``
    /// (the pixel budget then counts only those).
    ///
    /// - Returns: the number of frames to decode (`frameCount` when it is 1 or less, or with
    ///   ``firstFrameOnly``, whose caller decodes one anyway).
    /// - Throws: `pixelLimitExceeded` at stage `.decode` naming `plugin`.
    @discardableResult
    public func checkAnimationBudget(frameCount: Int, canvas: PixelSize, plugin: String) throws(ImageKernelError) -> Int {
        guard frameCount > 1, !firstFrameOnly else { return frameCount }
        var kept = frameCount
        if frameCount > maxFrameCount {
            guard framesOverLimit == .keepFirst, maxFrameCount >= 1 else {
                throw ImageKernelError(
                    stage: .decode, plugin: plugin, code: .pixelLimitExceeded,
                    message: "animation has \(frameCount) frames, more than the limit of \(maxFrameCount)")
            }
            kept = maxFrameCount
            if kept == 1 { return kept }
        }
        let (total, overflow) = kept.multipliedReportingOverflow(by: canvas.width * canvas.height)
        if overflow || total > animationPixelLimit {
            throw ImageKernelError(
                stage: .decode, plugin: plugin, code: .pixelLimitExceeded,
                message: "animation of \(kept) frames of \(canvas) needs \(overflow ? "more than Int.max" : "\(total)") pixels, more than the limit of \(animationPixelLimit)")
        }
        return kept
    }
}
