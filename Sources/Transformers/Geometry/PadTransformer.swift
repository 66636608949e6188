import ImageKernel

/// Adds borders of a colour around the image: `top`, `right`, `bottom` and `left` pixels. The
/// image's samples are kept exactly; an image without alpha gains an alpha channel when the
/// colour is not opaque.
public struct PadTransformer: ImageTransformer {
    public let top: Int
    public let right: Int
    public let bottom: Int
    public let left: Int
    /// The border's colour (default transparent).
    public let color: RGBAColor

    public init(top: Int, right: Int, bottom: Int, left: Int, color: RGBAColor = .transparent) {
        self.top = top
        self.right = right
        self.bottom = bottom
        self.left = left
        self.color = color
    }

    /// `pad:T:R:B:L:rrggbbaa`.
    public var key: String { "pad:\(top):\(right):\(bottom):\(left):\(color)" }

    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        try image.checkedForTransform(by: key)
        guard min(top, right, bottom, left) >= 0 else {
            throw ImageKernelError(stage: .transform, plugin: key, code: .invalidArgument, message: "padding cannot be negative")
        }
        let (width, widthOverflow) = image.width.addingReportingOverflow(left &+ right)
        let (height, heightOverflow) = image.height.addingReportingOverflow(top &+ bottom)
        guard !widthOverflow, !heightOverflow, left <= TransformLimits.maxSide, right <= TransformLimits.maxSide,
              top <= TransformLimits.maxSide, bottom <= TransformLimits.maxSide
        else {
            throw ImageKernelError(stage: .transform, plugin: key, code: .invalidArgument, message: "the padded image would be too large")
        }
        if width == image.width && height == image.height { return image }
        return try image.placed(onCanvasOf: width, height, x: left, y: top, fill: color)
    }
}
