import ImageKernel

/// Cuts away borders of one colour: the smallest rectangle holding every pixel that differs from
/// the colour by more than ``threshold`` (in 8-bit levels, on any channel) is kept.
///
/// The colour is ``color``, or the top-left pixel's when nil. Fully transparent pixels count as
/// background when the colour is transparent too (their colour does not matter); an image that is
/// all background is returned unchanged. An animation is cut by one rectangle, the union of every
/// frame's, with frame 0's corner as the colour (``transformAnimation(_:)``), so the frames stay
/// aligned. In a ``TransformSpec`` a `trim` runs before every other step.
public struct TrimTransformer: ImageTransformer {
    /// How far (0…255, in 8-bit levels) a sample may be from the colour and still be border.
    public let threshold: Double
    /// The border colour, or nil for the top-left pixel's.
    public let color: RGBAColor?

    public init(threshold: Double = 10, color: RGBAColor? = nil) {
        self.threshold = threshold
        self.color = color
    }

    /// `trim:THRESHOLD`, then `:rrggbbaa` for a given colour.
    public var key: String { "trim:\(SpecNumber.format(threshold))" + (color.map { ":\($0)" } ?? "") }

    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        try image.checkedForTransform(by: key)
        guard let box = content(of: image, background: background(of: image)) else { return image }
        return try crop(image, to: box)
    }

    /// The rectangle of `image` that ``transform(_:)`` keeps, or nil when it keeps the whole image
    /// (no border, or nothing but border). For drawing the kept part again at another scale.
    public func contentRect(of image: Image) throws(ImageKernelError) -> (x: Int, y: Int, width: Int, height: Int)? {
        try image.checkedForTransform(by: key)
        guard let box = content(of: image, background: background(of: image)),
              box != Box(x0: 0, y0: 0, x1: image.width, y1: image.height)
        else { return nil }
        return (box.x0, box.y0, box.x1 - box.x0, box.y1 - box.y0)
    }

    public func transformAnimation(_ image: Image) throws(ImageKernelError) -> Image {
        let frames = image.allFrames
        for frame in frames { try frame.image.checkedForTransform(by: key) }
        let background = background(of: image)
        var union: Box?
        for frame in frames {
            // Frames of another size than frame 0 (not made by our decoders) are left uncut.
            guard frame.image.width == image.width, frame.image.height == image.height else { return image }
            if let box = content(of: frame.image, background: background) { union = union.map { $0.union(box) } ?? box }
        }
        guard let union else { return image }
        var output = try crop(image, to: union)
        output.frames = try image.frames.map { frame throws(ImageKernelError) in ImageFrame(image: try crop(frame.image, to: union), duration: frame.duration) }
        output.duration = image.duration
        output.loopCount = image.loopCount
        return output
    }

    /// A rectangle of pixels, `x0..<x1`, `y0..<y1`.
    struct Box: Equatable {
        var x0: Int, y0: Int, x1: Int, y1: Int
        func union(_ other: Box) -> Box { Box(x0: min(x0, other.x0), y0: min(y0, other.y0), x1: max(x1, other.x1), y1: max(y1, other.y1)) }
    }

    private func crop(_ image: Image, to box: Box) throws(ImageKernelError) -> Image {
        if box == Box(x0: 0, y0: 0, x1: image.width, y1: image.height) { return image }
        return try image.remapped(.crop(x: box.x0, y: box.y0, width: box.x1 - box.x0, height: box.y1 - box.y0))
    }

    /// The border colour as a straight working pixel of `image`'s format.
    private func background(of image: Image) -> WorkingPixel {
        let codec = WorkingRowCodec(image.pixelFormat, premultiplying: false)
        if let color {
            let gray = image.pixelFormat.layout == .gray || image.pixelFormat.layout == .grayAlpha
            var pixel = color.working(maxValue: codec.maxValue, gray: gray, premultiplied: false)
            if !image.pixelFormat.hasAlpha { pixel.w = codec.maxValue }
            return pixel
        }
        var corner = WorkingPixel()
        image.pixels.withUnsafeBytes { codec.load($0.baseAddress!, width: 1, into: &corner) }
        return image.pixelFormat.isPremultiplied ? TrimTransformer.straight(corner, maxValue: codec.maxValue) : corner
    }

    /// The smallest box holding every pixel that is not border, or nil when there is none.
    private func content(of image: Image, background: WorkingPixel) -> Box? {
        let codec = WorkingRowCodec(image.pixelFormat, premultiplying: false)
        let limit = Float(threshold) * codec.maxValue / 255
        let unpremultiply = image.pixelFormat.isPremultiplied
        let transparentBackground = background.w <= limit
        let width = image.width
        var box: Box?
        let row = UnsafeMutablePointer<WorkingPixel>.allocate(capacity: width)
        defer { row.deallocate() }
        image.pixels.withUnsafeBytes { source in
            for y in 0..<image.height {
                codec.load(source.baseAddress! + y * image.bytesPerRow, width: width, into: row)
                var first = -1, last = -1
                for x in 0..<width {
                    var p = row[x]
                    if transparentBackground && p.w <= limit { continue }
                    if unpremultiply { p = TrimTransformer.straight(p, maxValue: codec.maxValue) }
                    let difference = p - background
                    if pointwiseMax(difference, -difference).max() > limit {
                        if first < 0 { first = x }
                        last = x
                    }
                }
                guard first >= 0 else { continue }
                let line = Box(x0: first, y0: y, x1: last + 1, y1: y + 1)
                box = box.map { $0.union(line) } ?? line
            }
        }
        return box
    }

    /// `p` with its premultiplied colour divided back by its alpha.
    private static func straight(_ p: WorkingPixel, maxValue: Float) -> WorkingPixel {
        guard p.w > 0 else { return p }
        let factor = maxValue / p.w
        return WorkingPixel(p.x * factor, p.y * factor, p.z * factor, p.w)
    }
}
