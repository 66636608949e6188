import ImageKernel

/// The document's own size and the canvas a decode renders it on.
struct SVGRenderSize {
    /// The intrinsic size in CSS pixels (96 dpi): width and height, else the viewBox's size, else
    /// ``SVGCoder/defaultSize`` square.
    var intrinsicWidth: Double
    var intrinsicHeight: Double
    /// The root's user space (its viewBox, else the intrinsic size): what radii are measured in.
    var userWidth: Double
    var userHeight: Double
    /// The canvas in pixels.
    var canvas: PixelSize
    /// True when the canvas is not the intrinsic size rounded up (a thumbnail, a resize's box or
    /// a scale-down): the document is then scaled to the canvas.
    var isScaled: Bool

    static let cairoMaxSide = 32767

    init(_ intrinsic: (width: Double, height: Double), user: (width: Double, height: Double), options: DecodeOptions, coder: String)
        throws(ImageKernelError)
    {
        (intrinsicWidth, intrinsicHeight) = intrinsic
        (userWidth, userHeight) = user
        let (w, h) = intrinsic
        guard w.isFinite, h.isFinite, w > 0, h > 0 else {
            throw SVGFailure.corrupt("the document's size is \(w)x\(h), not a positive size", coder: coder)
        }
        func side(_ value: Double) -> Int { Int(max(1, min(1e9, (value - 1e-6).rounded(.up)))) }
        let full = PixelSize(width: side(w), height: side(h))
        var canvas = full
        if let box = options.thumbnailPixelSize, !box.isEmpty {
            // The box as the kernel computes a thumbnail, drawn at that size: never rasterised large.
            canvas = PixelSize.thumbnail(of: full, fitting: box)
        } else if let shrink = options.shrinkOnLoad, shrink.width > 0, shrink.height > 0 {
            let sx = Double(shrink.width) / w, sy = Double(shrink.height) / h
            let scale = shrink.mode == .fit ? min(sx, sy) : max(sx, sy)
            // A vector is drawn at the resize's box, larger than its own size too (as imgproxy
            // draws vector sources whatever `enlarge` says): scaling a raster would blur it.
            canvas = PixelSize(width: side(w * scale), height: side(h * scale))
        }
        let (pixels, overflow) = canvas.width.multipliedReportingOverflow(by: canvas.height)
        if overflow || pixels > options.pixelLimit {
            guard options.scaleDownLargeImages else {
                throw SVGFailure.pixelLimit(
                    "the canvas is \(canvas) (\(overflow ? "more than Int.max" : "\(pixels)") pixels), over the pixel limit of \(options.pixelLimit)",
                    coder: coder)
            }
            try options.checkScaleDownSource(width: canvas.width, height: canvas.height, plugin: coder)
            let scale = (Double(max(1, options.pixelLimit)) / (Double(canvas.width) * Double(canvas.height))).squareRoot()
            canvas = PixelSize(width: max(1, Int(Double(canvas.width) * scale)), height: max(1, Int(Double(canvas.height) * scale)))
            while canvas.width * canvas.height > options.pixelLimit && canvas.width > 1 && canvas.height > 1 {
                canvas = PixelSize(width: canvas.width - 1, height: max(1, canvas.height - 1))
            }
            if canvas.width * canvas.height > options.pixelLimit {
                throw SVGFailure.pixelLimit("no canvas of this shape fits the pixel limit of \(options.pixelLimit)", coder: coder)
            }
        }
        guard canvas.width <= Self.cairoMaxSide, canvas.height <= Self.cairoMaxSide else {
            throw SVGFailure.pixelLimit("the canvas is \(canvas): cairo draws at most \(Self.cairoMaxSide) pixels a side", coder: coder)
        }
        self.canvas = canvas
        isScaled = canvas != full
    }

    /// Canvas pixels per user unit of the root.
    var deviceScale: Double {
        max(Double(canvas.width) / max(userWidth, 1e-9), Double(canvas.height) / max(userHeight, 1e-9))
    }
}
