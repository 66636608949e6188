import ImageKernel
import Transformers

extension ImgproxyTransformer {
    /// Up to this `watermark` scale the whole scaled mark is made (at most 16 times the result's
    /// pixels); above it only the part that can land on the result, so any scale (imgproxy sets
    /// no bound) costs at most a mark of the result's size.
    static let wholeWatermarkScale = 4.0

    /// imgproxy's `watermark`: scaled to fit `scale` times the result's size (its own size for 0),
    /// then placed by its position with offsets from that edge (pixels times `dpr`, fractions of
    /// the result below 1), partly outside when the offsets push it there, or repeated for `re`
    /// (the offsets there are the gaps between the copies).
    func placeWatermark(_ watermark: Image, on image: Image, dpr: Double) throws(ImageKernelError) -> Image {
        let o = options
        let position: WatermarkTransformer.Position
        var origin = (x: 0, y: 0)
        if o.watermarkPosition.kind == .re {
            // The offsets are the gaps between the tiles: pixels (times dpr) from 1 up, else
            // fractions of the result.
            let gapX = abs(o.watermarkPosition.x) >= 1 ? ImgproxyGeometry.roundToEven(o.watermarkPosition.x * dpr) : ImgproxyGeometry.scaleToEven(image.width, o.watermarkPosition.x)
            let gapY = abs(o.watermarkPosition.y) >= 1 ? ImgproxyGeometry.roundToEven(o.watermarkPosition.y * dpr) : ImgproxyGeometry.scaleToEven(image.height, o.watermarkPosition.y)
            position = gapX > 0 || gapY > 0 ? .tiledWithGaps(horizontal: gapX, vertical: gapY) : .tiled
            // Where the first copy starts (as WatermarkTransformer places it).
            origin = (min(max(0, gapX), 1 << 20) / 2, min(max(0, gapY), 1 << 20) / 2)
        } else {
            position = .origin(x: 0, y: 0)
        }
        guard o.watermarkScale > 0 else { return try place(watermark, on: image, position: position, dpr: dpr) }
        let scale = o.watermarkScale
        let boxWidth = max(1, ImgproxyGeometry.scaleToEven(image.width, scale)), boxHeight = max(1, ImgproxyGeometry.scaleToEven(image.height, scale))
        guard scale > Self.wholeWatermarkScale else {
            let mark = try ResizeTransformer(.fit, width: boxWidth, height: boxHeight, allowsEnlarging: true).transform(watermark)
            return try place(mark, on: image, position: position, dpr: dpr)
        }
        // The mark's size as the kernel's fit into the box gives it, never made whole.
        let fit = min(Double(boxWidth) / Double(watermark.width), Double(boxHeight) / Double(watermark.height))
        let markWidth = min(boxWidth, max(1, Int((Double(watermark.width) * fit).rounded())))
        let markHeight = min(boxHeight, max(1, Int((Double(watermark.height) * fit).rounded())))
        let visible: ResizeWindowTransformer.Window
        if case .origin = position {
            let at = ImgproxyGeometry.position(
                outer: (image.width, image.height), inner: (markWidth, markHeight), gravity: o.watermarkPosition, dpr: dpr, overflows: true)
            let x0 = max(0, -at.x), y0 = max(0, -at.y)
            let x1 = min(markWidth, image.width - at.x), y1 = min(markHeight, image.height - at.y)
            guard x0 < x1, y0 < y1 else { return image }  // wholly outside: imgproxy draws nothing
            visible = .init(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
            let part = try ResizeWindowTransformer(resizedWidth: markWidth, resizedHeight: markHeight, window: visible).transform(watermark)
            return try WatermarkTransformer(watermark: part, opacity: o.watermarkOpacity, position: .origin(x: at.x + x0, y: at.y + y0))
                .transform(image)
        }
        // Tiles: every copy shows at most the mark's first `result - origin` columns and rows. A
        // copy cut there, with the same gaps, makes a cell at least the result's size on that
        // side, so the tiles fall where the whole mark's do.
        let width = min(markWidth, image.width - origin.x), height = min(markHeight, image.height - origin.y)
        guard width > 0, height > 0 else { return image }
        visible = .init(x: 0, y: 0, width: width, height: height)
        let part = try ResizeWindowTransformer(resizedWidth: markWidth, resizedHeight: markHeight, window: visible).transform(watermark)
        return try WatermarkTransformer(watermark: part, opacity: o.watermarkOpacity, position: position).transform(image)
    }

    /// The whole `mark` tiled by `position`, or placed once by the watermark's gravity.
    private func place(_ mark: Image, on image: Image, position: WatermarkTransformer.Position, dpr: Double) throws(ImageKernelError) -> Image {
        guard case .origin = position else {
            return try WatermarkTransformer(watermark: mark, opacity: options.watermarkOpacity, position: position).transform(image)
        }
        let at = ImgproxyGeometry.position(
            outer: (image.width, image.height), inner: (mark.width, mark.height), gravity: options.watermarkPosition, dpr: dpr, overflows: true)
        return try WatermarkTransformer(watermark: mark, opacity: options.watermarkOpacity, position: .origin(x: at.x, y: at.y)).transform(image)
    }
}
