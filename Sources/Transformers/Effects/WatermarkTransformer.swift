import ImageKernel

/// Composites a watermark image over the image, with premultiplied alpha: at a gravity, or
/// repeated edge to edge from the top-left corner, at an opacity, at its own size or scaled to a
/// fraction of the image's width.
///
/// The result keeps the image's pixel format (an opaque image stays opaque). A gray image takes
/// the watermark's luma. The ``key`` names the placement but not the watermark's pixels: a cache
/// that serves several watermarks must add their identity itself.
public struct WatermarkTransformer: ImageTransformer {
    /// Where the watermark goes.
    public enum Position: Sendable, Hashable {
        /// Once, at a centre, edge or corner.
        case gravity(Gravity)
        /// Repeated over the whole image, from the top-left corner (spelled `re`).
        case tiled
        /// Repeated over the whole image with gaps between the copies: each copy sits in a cell of
        /// its size plus the gaps, half of each gap before it (the left and top halves rounded
        /// down), cells from the top-left corner. Negative gaps count as 0. For placements such as
        /// imgproxy's `re` with offsets; not spelled in the spec grammar.
        case tiledWithGaps(horizontal: Int, vertical: Int)
        /// Copies on a grid: one with its top-left corner at (`x`, `y`) (which may lie outside the
        /// image) and the others every `cellWidth` across and `cellHeight` down, in all four
        /// directions. Cells must be at least the watermark's size (copies never overlap). For
        /// placements such as imgproxy's `re`, whose copies are centred on the image; not spelled
        /// in the spec grammar.
        case grid(cellWidth: Int, cellHeight: Int, x: Int, y: Int)
        /// Once, its top-left corner at this pixel of the image (which may lie outside it: the
        /// part of the watermark over the image is drawn). For placements computed elsewhere,
        /// such as imgproxy's offsets from an edge; not spelled in the spec grammar.
        case origin(x: Int, y: Int)
    }

    /// The watermark (any pixel format; its alpha is honoured).
    public let watermark: Image
    /// 0 (invisible) to 1 (the watermark as it is).
    public let opacity: Double
    public let position: Position
    /// The watermark's width as a fraction of the image's (aspect ratio kept), or 0 for its own size.
    public let scale: Double

    public init(watermark: Image, opacity: Double = 1, position: Position = .gravity(.centre), scale: Double = 0) {
        self.watermark = watermark
        self.opacity = opacity
        self.position = position
        self.scale = scale
    }

    /// `watermark:OPACITY:POSITION:SCALE` (`POSITION` a gravity or `re`).
    public var key: String {
        let place = switch position {
        case .gravity(let gravity): gravity.rawValue
        case .tiled: "re"
        case .tiledWithGaps(let horizontal, let vertical): "re+\(max(0, horizontal)),\(max(0, vertical))"
        case .origin(let x, let y): "at\(x),\(y)"
        case .grid(let cellWidth, let cellHeight, let x, let y): "grid\(cellWidth)x\(cellHeight)@\(x),\(y)"
        }
        return "watermark:\(SpecNumber.format(opacity)):\(place):\(SpecNumber.format(scale))"
    }

    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        try image.checkedForTransform(by: key)
        try watermark.checkedForTransform(by: key)
        guard (0...1).contains(opacity), scale >= 0, scale.isFinite else {
            throw ImageKernelError(stage: .transform, plugin: key, code: .invalidArgument, message: "opacity must be 0…1 and scale at least 0")
        }
        guard opacity > 0 else { return image }
        var mark = watermark
        if scale > 0 {
            let width = max(1, Int((scale * Double(image.width)).rounded()))
            let height = max(1, Int((Double(mark.height) * Double(width) / Double(mark.width)).rounded()))
            if width != mark.width || height != mark.height {
                mark = try ResizeTransformer(.stretch, width: width, height: height, allowsEnlarging: true).transform(mark)
            }
        }
        let plane = overlay(mark, for: image.pixelFormat)
        defer { plane.deallocate() }
        let markWidth = mark.width, markHeight = mark.height
        let (originX, originY): (Int, Int)
        // Tiles: cells of the mark plus the gaps, the mark at (gapX / 2, gapY / 2) in each.
        var cell: (width: Int, height: Int)?
        switch position {
        case .gravity(let gravity):
            originX = Int((Double(image.width - markWidth) * gravity.anchor.x).rounded(.down))
            originY = Int((Double(image.height - markHeight) * gravity.anchor.y).rounded(.down))
        case .tiled:
            (originX, originY) = (0, 0)
            cell = (markWidth, markHeight)
        case .tiledWithGaps(let horizontal, let vertical):
            let gapX = min(max(0, horizontal), 1 << 20), gapY = min(max(0, vertical), 1 << 20)
            (originX, originY) = (gapX / 2, gapY / 2)
            cell = (markWidth + gapX, markHeight + gapY)
        case .origin(let x, let y):
            (originX, originY) = (x, y)
        case .grid(let cellWidth, let cellHeight, let x, let y):
            guard cellWidth >= markWidth, cellHeight >= markHeight else {
                throw ImageKernelError(
                    stage: .transform, plugin: key, code: .invalidArgument,
                    message: "grid cells of \(cellWidth)x\(cellHeight) are smaller than the \(markWidth)x\(markHeight) watermark")
            }
            (originX, originY) = (Self.modulo(x, cellWidth), Self.modulo(y, cellHeight))
            cell = (cellWidth, cellHeight)
        }
        let maxValue: Float = image.pixelFormat.bitsPerComponent == 16 ? 65535 : 255
        if let cell {
            return try image.mappingRows(premultiplying: true) { y, row in
                // The copy's row and column under (x, y), wherever in its cell the copy starts.
                let markY = Self.modulo(y - originY, cell.height)
                guard markY < markHeight else { return }
                let markRow = plane.baseAddress! + markY * markWidth
                for x in 0..<image.width {
                    let markX = Self.modulo(x - originX, cell.width)
                    guard markX < markWidth else { continue }
                    let w = markRow[markX]
                    row[x] = w + row[x] * (1 - w.w / maxValue)
                }
            }
        }
        return try image.mappingRows(premultiplying: true) { y, row in
            let markY = y - originY
            guard markY >= 0, markY < markHeight else { return }
            let markRow = plane.baseAddress! + markY * markWidth
            let from = max(0, originX), to = min(image.width, originX + markWidth)
            guard from < to else { return }
            for x in from..<to {
                let w = markRow[x - originX]
                row[x] = w + row[x] * (1 - w.w / maxValue)
            }
        }
    }

    /// `value` modulo `divisor` (positive), in 0..<divisor.
    @inline(__always)
    static func modulo(_ value: Int, _ divisor: Int) -> Int {
        let r = value % divisor
        return r < 0 ? r + divisor : r
    }

    /// The watermark as premultiplied working pixels in `format`'s sample scale and lanes (gray
    /// takes luma), times ``opacity``.
    private func overlay(_ mark: Image, for format: PixelFormat) -> UnsafeMutableBufferPointer<WorkingPixel> {
        let codec = WorkingRowCodec(mark.pixelFormat, premultiplying: true)
        let plane = UnsafeMutableBufferPointer<WorkingPixel>.allocate(capacity: mark.width * mark.height)
        let toGray = format.layout == .gray || format.layout == .grayAlpha
        let fromGray = mark.pixelFormat.layout == .gray || mark.pixelFormat.layout == .grayAlpha
        let factor = Float(opacity) * (format.bitsPerComponent == 16 ? 65535 : 255) / codec.maxValue
        mark.pixels.withUnsafeBytes { source in
            for y in 0..<mark.height {
                let row = plane.baseAddress! + y * mark.width
                codec.load(source.baseAddress! + y * mark.bytesPerRow, width: mark.width, into: row)
                for x in 0..<mark.width {
                    var p = row[x]
                    if toGray && !fromGray { p = WorkingPixel(0.2126 * p.x + 0.7152 * p.y + 0.0722 * p.z, 0, 0, p.w) }
                    if fromGray && !toGray { p = WorkingPixel(p.x, p.x, p.x, p.w) }
                    row[x] = p * factor
                }
            }
        }
        return plane
    }
}
