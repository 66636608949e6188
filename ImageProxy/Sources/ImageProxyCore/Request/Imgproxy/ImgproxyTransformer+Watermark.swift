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
    /// as imgproxy's `Replicate` repeats it: cells of the mark plus the gaps the offsets give
    /// (half of each gap before the mark), an odd number of them across and down, centred on the
    /// result.
    func placeWatermark(_ watermark: Image, on image: Image, dpr: Double) throws(ImageKernelError) -> Image {
        let o = options
        var gaps: (x: Int, y: Int)?
        if o.watermarkPosition.kind == .re {
            // The offsets are the gaps between the tiles: pixels (times dpr) from 1 up, else
            // fractions of the result.
            let gapX = abs(o.watermarkPosition.x) >= 1 ? ImgproxyGeometry.roundToEven(o.watermarkPosition.x * dpr) : ImgproxyGeometry.scaleToEven(image.width, o.watermarkPosition.x)
            let gapY = abs(o.watermarkPosition.y) >= 1 ? ImgproxyGeometry.roundToEven(o.watermarkPosition.y * dpr) : ImgproxyGeometry.scaleToEven(image.height, o.watermarkPosition.y)
            gaps = (min(max(0, gapX), 1 << 20), min(max(0, gapY), 1 << 20))
        }
        guard o.watermarkScale > 0 else { return try place(watermark, on: image, gaps: gaps, dpr: dpr) }
        let scale = o.watermarkScale
        let boxWidth = max(1, ImgproxyGeometry.scaleToEven(image.width, scale)), boxHeight = max(1, ImgproxyGeometry.scaleToEven(image.height, scale))
        guard scale > Self.wholeWatermarkScale else {
            let mark = try ResizeTransformer(.fit, width: boxWidth, height: boxHeight, allowsEnlarging: true).transform(watermark)
            return try place(mark, on: image, gaps: gaps, dpr: dpr)
        }
        // The mark's size as the kernel's fit into the box gives it, never made whole.
        let fit = min(Double(boxWidth) / Double(watermark.width), Double(boxHeight) / Double(watermark.height))
        let markWidth = min(boxWidth, max(1, Int((Double(watermark.width) * fit).rounded())))
        let markHeight = min(boxHeight, max(1, Int((Double(watermark.height) * fit).rounded())))
        guard let gaps else {
            let at = ImgproxyGeometry.position(
                outer: (image.width, image.height), inner: (markWidth, markHeight), gravity: o.watermarkPosition, dpr: dpr, overflows: true)
            let x0 = max(0, -at.x), y0 = max(0, -at.y)
            let x1 = min(markWidth, image.width - at.x), y1 = min(markHeight, image.height - at.y)
            guard x0 < x1, y0 < y1 else { return image }  // wholly outside: imgproxy draws nothing
            let visible = ResizeWindowTransformer.Window(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
            let part = try ResizeWindowTransformer(resizedWidth: markWidth, resizedHeight: markHeight, window: visible).transform(watermark)
            return try WatermarkTransformer(watermark: part, opacity: o.watermarkOpacity, position: .origin(x: at.x + x0, y: at.y + y0))
                .transform(image)
        }
        // Tiles: along a side where one cell covers the result only that copy shows, and only the
        // part of it over the result is made; where several cells do, the mark is smaller than
        // the result on that side and is made whole.
        let across = Self.replicaAxis(result: image.width, mark: markWidth, gap: gaps.x)
        let down = Self.replicaAxis(result: image.height, mark: markHeight, gap: gaps.y)
        guard let columns = across.visible, let rows = down.visible else { return image }
        let visible = ResizeWindowTransformer.Window(x: columns.lowerBound, y: rows.lowerBound, width: columns.count, height: rows.count)
        let part = try ResizeWindowTransformer(resizedWidth: markWidth, resizedHeight: markHeight, window: visible).transform(watermark)
        let grid = WatermarkTransformer.Position.grid(
            cellWidth: across.cell, cellHeight: down.cell, x: across.first + columns.lowerBound, y: down.first + rows.lowerBound)
        return try WatermarkTransformer(watermark: part, opacity: o.watermarkOpacity, position: grid).transform(image)
    }

    /// One side of imgproxy's `Replicate` (libvips' `vips_replicate` then a centred
    /// `extract_area`): cells of `mark + gap`, as many as cover `result` made odd, centred; the
    /// mark `gap / 2` into its cell. `first` is where one copy starts on the result; `visible`
    /// the mark's pixels that can land on it (all of them when several cells show; nil when none).
    static func replicaAxis(result: Int, mark: Int, gap: Int) -> (cell: Int, first: Int, visible: Range<Int>?) {
        let cell = mark + gap
        var count = (result + cell - 1) / cell
        if count % 2 == 0 { count += 1 }
        let first = gap / 2 - (count * cell - result) / 2
        guard count == 1 else { return (cell, first, 0..<mark) }
        let from = max(0, -first), to = min(mark, result - first)
        return (cell, first, from < to ? from..<to : nil)
    }

    /// The whole `mark` repeated as imgproxy repeats it (with `gaps`), or placed once by the
    /// watermark's gravity.
    private func place(_ mark: Image, on image: Image, gaps: (x: Int, y: Int)?, dpr: Double) throws(ImageKernelError) -> Image {
        if let gaps {
            let across = Self.replicaAxis(result: image.width, mark: mark.width, gap: gaps.x)
            let down = Self.replicaAxis(result: image.height, mark: mark.height, gap: gaps.y)
            let grid = WatermarkTransformer.Position.grid(cellWidth: across.cell, cellHeight: down.cell, x: across.first, y: down.first)
            return try WatermarkTransformer(watermark: mark, opacity: options.watermarkOpacity, position: grid).transform(image)
        }
        let at = ImgproxyGeometry.position(
            outer: (image.width, image.height), inner: (mark.width, mark.height), gravity: options.watermarkPosition, dpr: dpr, overflows: true)
        return try WatermarkTransformer(watermark: mark, opacity: options.watermarkOpacity, position: .origin(x: at.x, y: at.y)).transform(image)
    }
}
