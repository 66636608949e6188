import CRSVG
import ImageKernel

/// Decodes an SVG: the budget scan, librsvg's parse (no base URL), the canvas size, the work
/// estimate for that canvas, then one render into the image's own buffer.
enum SVGDecoding {
    static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions, limits: SVGCoder.Limits, coder: String)
        throws(ImageKernelError) -> Image
    {
        try parse(bytes, coder: coder) { scan, document throws(ImageKernelError) -> Image in
            try render(document, scan: scan, options: options, limits: limits, coder: coder)
        }
    }

    /// The canvas a decode at the intrinsic size renders on, from the parse alone (no render).
    static func intrinsicCanvas(_ bytes: UnsafeRawBufferPointer, coder: String) throws(ImageKernelError) -> PixelSize {
        try parse(bytes, coder: coder) { _, document throws(ImageKernelError) -> PixelSize in
            var intrinsic = crsvg_intrinsic()
            crsvg_intrinsic_size(document, &intrinsic)
            return try renderSize(intrinsic, options: DecodeOptions(), coder: coder).canvas
        }
    }

    /// The sniff, the budget scan before parsing and librsvg's parse (no base URL); `body` gets
    /// the scan and the document, freed after it.
    private static func parse<T>(
        _ bytes: UnsafeRawBufferPointer, coder: String, _ body: (SVGScan, OpaquePointer) throws(ImageKernelError) -> T
    ) throws(ImageKernelError) -> T {
        guard ImageFormat.sniff(bytes) == .svg else {
            throw ImageKernelError(
                stage: .decode, plugin: coder, code: bytes.count < 5 ? .truncated : .corruptData,
                message: "SVG: no <svg> document element after the XML prolog")
        }
        let scan: SVGScan
        do { scan = try SVGScan(bytes) } catch { throw SVGFailure.scan(error, coder: coder) }
        do { try SVGWorkEstimate.checkBeforeParsing(scan) } catch { throw SVGFailure.estimate(error, coder: coder) }

        var error = crsvg_error()
        guard let base = bytes.baseAddress, let document = crsvg_load(base.assumingMemoryBound(to: UInt8.self), bytes.count, &error) else {
            throw SVGFailure.librsvg(error, what: "parse", coder: coder)
        }
        defer { crsvg_free(document) }
        return try body(scan, document)
    }

    /// The canvas size, the work estimate for that canvas, then one render into the image's own buffer.
    private static func render(_ document: OpaquePointer, scan: SVGScan, options: DecodeOptions, limits: SVGCoder.Limits, coder: String)
        throws(ImageKernelError) -> Image
    {
        var error = crsvg_error()
        var intrinsic = crsvg_intrinsic()
        crsvg_intrinsic_size(document, &intrinsic)
        let size = try renderSize(intrinsic, options: options, coder: coder)

        let geometry = SVGWorkEstimate.Geometry(
            deviceScale: size.deviceScale, canvasWidth: Double(size.canvas.width), canvasHeight: Double(size.canvas.height),
            userExtent: max(size.userWidth, size.userHeight))
        let estimate: SVGWorkEstimate
        do { estimate = try SVGWorkEstimate(scan, geometry: geometry) } catch { throw SVGFailure.estimate(error, coder: coder) }
        let work = estimate.total(canvasPixels: Double(size.canvas.width) * Double(size.canvas.height))
        guard work <= limits.workBudget else {
            throw ImageKernelError(
                stage: .decode, plugin: coder, code: .tooLarge,
                message: "SVG: rendering at \(size.canvas) is estimated at \(Int(min(work, 9e18))) work units "
                    + "(\(Int(min(estimate.instances, 9e18))) element instances), over the budget of \(Int(limits.workBudget))")
        }

        var pixels = [UInt8](repeating: 0, count: size.canvas.width * size.canvas.height * 4)
        // At the intrinsic size a fractional document keeps its size in the rounded-up canvas
        // (as rsvg-convert draws it); a scaled canvas takes the whole document.
        let (scaleX, scaleY) =
            size.isScaled ? (Double(size.canvas.width) / size.intrinsicWidth, Double(size.canvas.height) / size.intrinsicHeight) : (1, 1)
        let status = pixels.withUnsafeMutableBufferPointer { buffer in
            crsvg_render(
                document, buffer.baseAddress, Int32(size.canvas.width), Int32(size.canvas.height), size.intrinsicWidth, size.intrinsicHeight,
                scaleX, scaleY, &error)
        }
        guard status == 0 else { throw SVGFailure.librsvg(error, what: "render", coder: coder) }
        var notes: [String: String] = [:]
        if size.isScaled { notes[Image.MetadataKey.thumbnailSource] = "scaled-decode" }
        return try Image(
            width: size.canvas.width, height: size.canvas.height, pixelFormat: .rgba8, pixels: pixels, sourceFormat: .svg,
            scale: options.scale, decoderNotes: notes)
    }

    /// The intrinsic size (width and height at 96 dpi, else the viewBox, else the default) and
    /// the canvas the options ask for.
    static func renderSize(_ intrinsic: crsvg_intrinsic, options: DecodeOptions, coder: String) throws(ImageKernelError) -> SVGRenderSize {
        let viewBox = intrinsic.has_viewbox != 0 ? (intrinsic.viewbox_width, intrinsic.viewbox_height) : nil
        let size: (Double, Double)
        if intrinsic.has_pixel_size != 0 {
            size = (intrinsic.pixel_width, intrinsic.pixel_height)
        } else if let viewBox {
            size = viewBox
        } else {
            size = (SVGCoder.defaultSize, SVGCoder.defaultSize)
        }
        return try SVGRenderSize(size, user: viewBox ?? size, options: options, coder: coder)
    }
}
