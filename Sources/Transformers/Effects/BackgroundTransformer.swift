import ImageKernel

/// Composites the image over a colour. An opaque colour flattens the alpha away (RGBA becomes
/// RGB, gray+alpha becomes gray), as formats without alpha (JPEG) need; a translucent one is
/// composited under the image and the alpha kept. Images without alpha are returned unchanged.
///
/// ``TransformSpec/backgroundColor`` gives the colour to encoders too (``EncodeOptions/backgroundColor``).
public struct BackgroundTransformer: ImageTransformer {
    public let color: RGBAColor

    public init(_ color: RGBAColor) { self.color = color }

    /// `background:rrggbbaa`.
    public var key: String { "background:\(color)" }

    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        try image.checkedForTransform(by: key)
        let format = image.pixelFormat
        guard format.hasAlpha else { return image }
        let flattened: PixelFormat? = color.alpha == 255
            ? PixelFormat(layout: format.layout == .rgba ? .rgb : .gray, bitsPerComponent: format.bitsPerComponent) : nil
        let maxValue: Float = format.bitsPerComponent == 16 ? 65535 : 255
        let under = color.working(maxValue: maxValue, gray: format.layout == .grayAlpha, premultiplied: true)
        // Rows arrive premultiplied (or already are): source over background is one multiply-add.
        return try image.mappingRows(to: flattened, premultiplying: true) { _, row in
            for x in 0..<image.width {
                let p = row[x]
                row[x] = p + under * (1 - p.w / maxValue)
            }
        }
    }
}
