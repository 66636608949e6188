import ImageKernel

/// Places the image on a canvas of at least `width`×`height`, by a ``Gravity``, filling the rest
/// with a colour: the step that turns a `fit` result into exactly the box (`resize:fit:300:200/extend`).
///
/// A side already longer than the canvas is kept (nothing is cut), so the result is the larger
/// of the two on each side. The image's samples are kept exactly; an image without alpha gains
/// an alpha channel when the colour is not opaque.
public struct ExtendTransformer: ImageTransformer {
    public let width: Int
    public let height: Int
    public let gravity: Gravity
    /// The canvas colour (default transparent; a later `background` step can flatten it).
    public let color: RGBAColor

    public init(width: Int, height: Int, gravity: Gravity = .centre, color: RGBAColor = .transparent) {
        self.width = width
        self.height = height
        self.gravity = gravity
        self.color = color
    }

    /// `extend:W:H:GRAVITY`, then `:rrggbbaa` for a colour that is not transparent.
    public var key: String { "extend:\(width):\(height):\(gravity.rawValue)" + (color == .transparent ? "" : ":\(color)") }

    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        try image.checkedForTransform(by: key)
        try TransformLimits.check(width: width, height: height, what: "extend canvas")
        let canvasWidth = max(width, image.width), canvasHeight = max(height, image.height)
        if canvasWidth == image.width && canvasHeight == image.height { return image }
        let x = Int((Double(canvasWidth - image.width) * gravity.anchor.x).rounded(.down))
        let y = Int((Double(canvasHeight - image.height) * gravity.anchor.y).rounded(.down))
        return try image.placed(onCanvasOf: canvasWidth, canvasHeight, x: x, y: y, fill: color)
    }
}
