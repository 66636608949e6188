import ImageKernel

/// A true Gaussian blur of standard deviation ``sigma`` pixels, as two separable passes
/// (truncated at 3 sigma; near the edges the kernel is renormalised over the pixels that exist).
/// Straight alpha is blurred premultiplied.
public struct GaussianBlurTransformer: ImageTransformer {
    /// The largest sigma accepted, in pixels (its kernel spans 601 pixels; larger blurs are
    /// better made on a downscaled image).
    public static let maxSigma = 100.0

    public let sigma: Double
    /// At most this many threads (0: every core). Not part of the key: the output is the same.
    public var threadLimit: Int

    public init(sigma: Double, threadLimit: Int = 0) {
        self.sigma = sigma
        self.threadLimit = threadLimit
    }

    /// `blur:SIGMA`.
    public var key: String { "blur:\(SpecNumber.format(sigma))" }

    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        try image.checkedForTransform(by: key)
        let filter = try Self.filter(sigma: sigma, for: image, threadLimit: threadLimit, key: key)
        return try filter.apply(to: image, codec: WorkingRowCodec(image.pixelFormat), outputFormat: image.pixelFormat)
    }

    /// The two Gaussian passes for `image`, or a typed error for a sigma out of range.
    static func filter(sigma: Double, for image: Image, threadLimit: Int, key: String) throws(ImageKernelError) -> SeparableFilter {
        guard sigma > 0, sigma <= maxSigma else {
            throw ImageKernelError(stage: .transform, plugin: key, code: .invalidArgument, message: "sigma must be in (0, \(maxSigma)], not \(sigma)")
        }
        let axes = FilterAxisCache.shared
        return SeparableFilter(
            horizontal: axes.gaussian(sigma, count: image.width), vertical: axes.gaussian(sigma, count: image.height), threadLimit: threadLimit)
    }
}
