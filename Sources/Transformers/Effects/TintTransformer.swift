import ImageKernel

/// Blends every pixel's colour toward ``color`` by the colour's alpha (`ff` replaces the colour,
/// `80` is a half blend); the image's own alpha is kept. Gray images blend toward the colour's luma.
public struct TintTransformer: ImageTransformer {
    public let color: RGBAColor

    public init(_ color: RGBAColor) { self.color = color }

    /// `tint:rrggbbaa`.
    public var key: String { "tint:\(color)" }

    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        try image.checkedForTransform(by: key)
        let format = image.pixelFormat
        let maxValue: Float = format.bitsPerComponent == 16 ? 65535 : 255
        let gray = format.layout == .gray || format.layout == .grayAlpha
        let tint = color.working(maxValue: maxValue, gray: gray, premultiplied: false)
        let strength = Float(color.alpha) / 255
        let premultiplied = format.isPremultiplied
        return try image.mappingRows(premultiplying: false) { _, row in
            for x in 0..<image.width {
                let p = row[x]
                // Premultiplied colour blends toward the tint premultiplied by this pixel's alpha.
                let target = premultiplied ? tint * (p.w / maxValue) : tint
                var blended = p * (1 - strength) + target * strength
                blended.w = p.w
                row[x] = blended
            }
        }
    }
}
