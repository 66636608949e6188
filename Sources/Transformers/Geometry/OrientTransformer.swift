import ImageKernel

/// Applies the image's EXIF orientation to its pixels, exactly, and sets it to `up`, so the
/// result displays the same anywhere, whether or not a viewer reads EXIF. An image that is
/// already `up` is returned as it is.
public struct OrientTransformer: ImageTransformer {
    public init() {}

    /// `orient`.
    public var key: String { "orient" }

    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        try image.checkedForTransform(by: key)
        // Already upright (most images): nothing to move, so no copy.
        if image.orientation == .up { return image }
        var result = try image.remapped(.upright(image.orientation, width: image.width, height: image.height))
        result.orientation = .up
        return result
    }
}
