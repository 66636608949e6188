import ImageKernel
import Transformers

/// Vector (SVG) sources drawn at the scale imgproxy loads them at.
extension ImgproxyTransformer {
    /// The decoder note under which a drawing records the size (`WxH`) of the document (or of its
    /// trimmed part) it was drawn from at another scale: ``transform(_:)`` computes imgproxy's
    /// geometry on that size, then carries it over to the drawing as imgproxy's `scaleOnLoad` does.
    public static let vectorSourceSizeNote = "imgproxy.vector-source-size"
    /// The decoder note of a drawing already cut to the `trim` box found on the document drawn at
    /// its own size: ``transform(_:)`` does not trim it again.
    public static let vectorTrimmedNote = "imgproxy.vector-trimmed"

    /// The box a vector source of `intrinsicWidth` x `intrinsicHeight` is drawn at, as imgproxy
    /// draws vector sources at the scale its geometry computes (its `scaleOnLoad`): the intrinsic
    /// size divided by imgproxy's load shrink, computed on the size after rotation and with the
    /// crop, when that enlarges. Nil when the drawing would not grow, and for `trim` (see
    /// ``vectorDrawing(intrinsic:options:decode:)``).
    public func vectorRenderBox(intrinsicWidth width: Int, intrinsicHeight height: Int) -> ShrinkOnLoad? {
        guard options.trimThreshold == nil else { return nil }
        return renderBox(intrinsic: (width, height), toScale: (width, height), isVector: true)
    }

    /// The document as imgproxy's pipeline has it before its crop, drawn sharp: at
    /// ``vectorRenderBox(intrinsicWidth:intrinsicHeight:)`` with ``vectorSourceSizeNote``; for
    /// `trim`, drawn at its own size and trimmed there (as imgproxy trims, after which it treats the
    /// image as a raster, so `enlarge` decides), then, when the geometry on the trimmed size
    /// enlarges, drawn again at that scale and cut to the trim's box (``vectorTrimmedNote``).
    /// Nil when the plain decode at the document's own size is that drawing.
    /// - Parameters:
    ///   - intrinsic: the document's canvas at its own size (``SVGCoder/intrinsicCanvas(of:)``).
    ///   - decode: decodes the document with the options given.
    public func vectorDrawing(
        intrinsic: PixelSize, options decodeOptions: DecodeOptions, decode: (DecodeOptions) throws(ImageKernelError) -> Image
    ) throws(ImageKernelError) -> Image? {
        var drawOptions = decodeOptions
        guard let threshold = options.trimThreshold else {
            guard let box = vectorRenderBox(intrinsicWidth: intrinsic.width, intrinsicHeight: intrinsic.height) else { return nil }
            drawOptions.shrinkOnLoad = box
            var drawing = try decode(drawOptions)
            drawing.decoderNotes[Self.vectorSourceSizeNote] = "\(intrinsic.width)x\(intrinsic.height)"
            return drawing
        }
        drawOptions.shrinkOnLoad = nil
        let whole = try decode(drawOptions)
        guard let rect = try TrimTransformer(threshold: threshold, color: options.trimColor).contentRect(of: whole),
              let box = renderBox(intrinsic: (whole.width, whole.height), toScale: (rect.width, rect.height), isVector: false)
        else { return whole }
        drawOptions.shrinkOnLoad = box
        // Over the pixel limit at that scale: the trimmed raster is scaled, as imgproxy scales it.
        guard let drawing = try? decode(drawOptions) else { return whole }
        let sx = Double(drawing.width) / Double(whole.width), sy = Double(drawing.height) / Double(whole.height)
        let x0 = min(drawing.width - 1, ImgproxyGeometry.round(Double(rect.x) * sx))
        let y0 = min(drawing.height - 1, ImgproxyGeometry.round(Double(rect.y) * sy))
        let x1 = max(x0 + 1, min(drawing.width, ImgproxyGeometry.round(Double(rect.x + rect.width) * sx)))
        let y1 = max(y0 + 1, min(drawing.height, ImgproxyGeometry.round(Double(rect.y + rect.height) * sy)))
        var cut = try CropTransformer(.rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)).transform(drawing)
        cut.decoderNotes[Self.vectorSourceSizeNote] = "\(rect.width)x\(rect.height)"
        cut.decoderNotes[Self.vectorTrimmedNote] = "1"
        return cut
    }

    /// The box the `intrinsic` canvas is drawn at so that its part `toScale` (the whole, or the
    /// trimmed part) has imgproxy's load scale for these options; nil unless that enlarges.
    private func renderBox(intrinsic: (width: Int, height: Int), toScale: (width: Int, height: Int), isVector: Bool) -> ShrinkOnLoad? {
        guard intrinsic.width > 0, intrinsic.height > 0, toScale.width > 0, toScale.height > 0 else { return nil }
        let turned = (((options.rotate % 360) + 360) % 360) % 180 == 90
        let (width, height) = turned ? (toScale.height, toScale.width) : (toScale.width, toScale.height)
        let g = ImgproxyGeometry(width: width, height: height, options: options, isVector: isVector)
        let shrink = g.loadShrink(width: width, height: height)
        guard shrink < 1, shrink > 0, shrink.isFinite else { return nil }
        let boxWidth = ImgproxyGeometry.round(Double(intrinsic.width) / shrink)
        let boxHeight = ImgproxyGeometry.round(Double(intrinsic.height) / shrink)
        return ShrinkOnLoad(width: max(1, boxWidth), height: max(1, boxHeight), mode: .fill)
    }

    /// The document's own size a vector source was drawn from, when it was drawn at another.
    static func vectorSourceSize(of image: Image) -> (width: Int, height: Int)? {
        guard let note = image.decoderNotes[vectorSourceSizeNote] else { return nil }
        let sides = note.split(separator: "x").compactMap { Int($0) }
        guard sides.count == 2, sides[0] > 0, sides[1] > 0 else { return nil }
        return (sides[0], sides[1])
    }
}
