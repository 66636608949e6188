import ImageKernel

/// Replaces colour by its Rec. 709 luma (0.2126 R + 0.7152 G + 0.0722 B), keeping the pixel
/// format (RGB stays RGB with equal channels) and alpha. Gray images are returned as they are.
public struct GrayscaleTransformer: ImageTransformer {
    public init() {}

    /// `gray`.
    public var key: String { "gray" }

    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        try image.checkedForTransform(by: key)
        guard image.pixelFormat.layout == .rgb || image.pixelFormat.layout == .rgba else { return image }
        return try image.mappingRows(premultiplying: false) { _, row in
            for x in 0..<image.width {
                let p = row[x]
                let luma = 0.2126 * p.x + 0.7152 * p.y + 0.0722 * p.z
                row[x] = WorkingPixel(luma, luma, luma, p.w)
            }
        }
    }
}
