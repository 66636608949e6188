import ImageKernel

/// One window of a resize: the pixels a stretch of the image to `resizedWidth` x `resizedHeight`
/// (``ResizeTransformer`` with `.stretch`, enlarging allowed) has inside ``window``, computed
/// without the rest. The cost follows the window, not the resized size: a watermark scaled to a
/// thousand times the image it covers costs what its visible part does.
///
/// Each output pixel is sampled at the source position and with the filter taps the whole resize
/// uses for it, so the window equals the same rectangle cut from the whole resize (up to
/// floating-point rounding of the positions).
public struct ResizeWindowTransformer: ImageTransformer {
    /// A rectangle of the resized image, in its pixels.
    public struct Window: Sendable, Hashable {
        public var x: Int
        public var y: Int
        public var width: Int
        public var height: Int

        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// The size of the whole resize (never made; may exceed ``TransformLimits``).
    public let resizedWidth: Int
    public let resizedHeight: Int
    /// The part made: inside `resizedWidth` x `resizedHeight`, within ``TransformLimits``.
    public let window: Window
    public let filter: ResamplingFilter
    /// At most this many threads (0: every core). Not part of the key: the output is the same.
    public var threadLimit: Int

    public init(resizedWidth: Int, resizedHeight: Int, window: Window, filter: ResamplingFilter = .lanczos3, threadLimit: Int = 0) {
        self.resizedWidth = resizedWidth
        self.resizedHeight = resizedHeight
        self.window = window
        self.filter = filter
        self.threadLimit = threadLimit
    }

    /// `resize-window:W:H:X,Y,WW,WH:FILTER`.
    public var key: String {
        "resize-window:\(resizedWidth):\(resizedHeight):\(window.x),\(window.y),\(window.width),\(window.height):\(filter.rawValue)"
    }

    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        try image.checkedForTransform(by: key)
        let w = window
        guard resizedWidth > 0, resizedHeight > 0, w.x >= 0, w.y >= 0, w.width > 0, w.height > 0,
              w.x <= resizedWidth - w.width, w.y <= resizedHeight - w.height
        else {
            throw ImageKernelError(
                stage: .transform, plugin: key, code: .invalidArgument,
                message: "the window must be a non-empty rectangle inside the \(resizedWidth)x\(resizedHeight) resize")
        }
        try TransformLimits.check(width: w.width, height: w.height, what: "resized window")
        let sx = Double(image.width) / Double(resizedWidth), sy = Double(image.height) / Double(resizedHeight)
        let axes = FilterAxisCache.shared
        let separable = SeparableFilter(
            horizontal: axes.resampling(
                image.width, from: Double(w.x) * sx, to: Double(w.x + w.width) * sx, outputCount: w.width, filter: filter),
            vertical: axes.resampling(
                image.height, from: Double(w.y) * sy, to: Double(w.y + w.height) * sy, outputCount: w.height, filter: filter),
            threadLimit: threadLimit)
        return try separable.apply(to: image, codec: WorkingRowCodec(image.pixelFormat), outputFormat: image.pixelFormat)
    }
}
