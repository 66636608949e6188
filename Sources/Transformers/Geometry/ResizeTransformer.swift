import ImageKernel

/// Resizes with a separable filter (box, bilinear, Catmull-Rom bicubic or Lanczos-3) whose
/// support widens when downscaling; straight alpha is resampled premultiplied, so transparent
/// pixels leave no dark fringes. The pixel format, ICC profile and other metadata are kept.
///
/// Unless ``allowsEnlarging`` is set, no side grows: `fit` and `fill` keep the image's size when
/// it is already smaller, and `stretch` clamps each side to the image's.
public struct ResizeTransformer: ImageTransformer {
    /// How the image meets the box.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Inside the box, aspect ratio kept; one side may be shorter than the box.
        case fit
        /// Covers the box, aspect ratio kept, then cropped to it by ``ResizeTransformer/gravity``.
        case fill
        /// Exactly the box; the aspect ratio may change.
        case stretch
    }

    public let mode: Mode
    public let width: Int
    public let height: Int
    public let filter: ResamplingFilter
    /// Which part `fill` keeps: a gravity, the most interesting part or a focus point.
    public let placement: CropPlacement
    /// The gravity of ``placement`` (`centre` for a smart or focus-point placement).
    public var gravity: Gravity {
        if case .gravity(let gravity) = placement { return gravity }
        return .centre
    }
    /// Whether the image may grow.
    public let allowsEnlarging: Bool
    /// At most this many threads (0: every core). Not part of the key: the output is the same.
    public var threadLimit: Int

    public init(
        _ mode: Mode, width: Int, height: Int, filter: ResamplingFilter = .lanczos3, gravity: Gravity = .centre,
        allowsEnlarging: Bool = false, threadLimit: Int = 0, placement: CropPlacement? = nil
    ) {
        self.mode = mode
        self.width = width
        self.height = height
        self.filter = filter
        self.placement = placement ?? .gravity(gravity)
        self.allowsEnlarging = allowsEnlarging
        self.threadLimit = threadLimit
    }

    /// `resize:MODE:W:H:FILTER`, then `:PLACEMENT` for a `fill` that is not centred (a gravity,
    /// `smart` or `fp:X:Y`) and `:enlarge`.
    public var key: String {
        var key = "resize:\(mode.rawValue):\(width):\(height):\(filter.rawValue)"
        if mode == .fill && placement != .gravity(.centre) { key += ":\(placement.key)" }
        if allowsEnlarging { key += ":enlarge" }
        return key
    }

    /// What a resize does to an image of a given size.
    enum Geometry {
        /// Nothing: the image is returned as it is.
        case unchanged
        /// An exact crop to this size by ``ResizeTransformer/placement`` (a `fill` at scale 1).
        case crop(width: Int, height: Int)
        /// The source area `source` (fractional) resampled to `width` x `height`.
        case resample(width: Int, height: Int, source: (x: Double, y: Double, width: Double, height: Double))
    }

    /// The geometry for an image of `imageWidth` x `imageHeight`; throws for a box or result over
    /// the transform limits. `attention` is asked only by a smart `fill` that has to choose.
    func geometry(
        imageWidth: Int, imageHeight: Int, attention: () throws(ImageKernelError) -> AttentionMap
    ) throws(ImageKernelError) -> Geometry {
        try TransformLimits.check(width: width, height: height, what: "resize box")
        let w = Double(imageWidth), h = Double(imageHeight)
        let boxWidth = Double(width), boxHeight = Double(height)
        var outWidth: Int, outHeight: Int
        var source = (x: 0.0, y: 0.0, width: w, height: h)
        switch mode {
        case .fit, .fill:
            var scale = mode == .fit ? min(boxWidth / w, boxHeight / h) : max(boxWidth / w, boxHeight / h)
            if !allowsEnlarging { scale = min(1, scale) }
            outWidth = min(width, max(1, Int((w * scale).rounded())))
            outHeight = min(height, max(1, Int((h * scale).rounded())))
            if mode == .fill {
                // Nothing to resample: an exact crop.
                if scale == 1 { return .crop(width: outWidth, height: outHeight) }
                source.width = min(w, Double(outWidth) / scale)
                source.height = min(h, Double(outHeight) / scale)
                (source.x, source.y) = try placement.origin(
                    width: source.width, height: source.height, imageWidth: imageWidth, imageHeight: imageHeight, attention: attention)
            }
        case .stretch:
            outWidth = allowsEnlarging ? width : min(width, imageWidth)
            outHeight = allowsEnlarging ? height : min(height, imageHeight)
        }
        if outWidth == imageWidth && outHeight == imageHeight && source.width == w && source.height == h { return .unchanged }
        try TransformLimits.check(width: outWidth, height: outHeight, what: "resized image")
        return .resample(width: outWidth, height: outHeight, source: source)
    }

    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        try image.checkedForTransform(by: key)
        switch try geometry(imageWidth: image.width, imageHeight: image.height, attention: { () throws(ImageKernelError) in try AttentionMap(image) }) {
        case .unchanged:
            return image
        case let .crop(outWidth, outHeight):
            return try CropTransformer(.placed(width: outWidth, height: outHeight, placement: placement)).transform(image)
        case let .resample(outWidth, outHeight, source):
            let axes = FilterAxisCache.shared
            let filter = SeparableFilter(
                horizontal: axes.resampling(image.width, from: source.x, to: source.x + source.width, outputCount: outWidth, filter: self.filter),
                vertical: axes.resampling(image.height, from: source.y, to: source.y + source.height, outputCount: outHeight, filter: self.filter),
                threadLimit: threadLimit)
            return try filter.apply(to: image, codec: WorkingRowCodec(image.pixelFormat), outputFormat: image.pixelFormat)
        }
    }
}
