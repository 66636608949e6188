import ImageKernel

/// How a JPEG is decoded to honour the thumbnail size and the pixel limit: the DCT scale
/// (`numerator`/8, libjpeg-turbo's scaled IDCTs) and, for thumbnails, the exact size a final
/// area-average downscale brings the DCT output to.
struct JPEGScalePlan: Equatable, Sendable {
    /// libjpeg's `scale_num` over a `scale_denom` of 8.
    var numerator: Int
    /// The size after the final downscale, or nil to keep the DCT output as it is.
    var finalSize: PixelSize?

    /// Chooses the plan, or throws `pixelLimitExceeded` before anything is allocated.
    ///
    /// - A thumbnail size picks the smallest N/8 (N = 1…8) whose output is still at least the
    ///   thumbnail (``PixelSize/thumbnail(of:fitting:)``: aspect kept, inside the box); the output
    ///   is then area-averaged down to exactly that size. Never upscales.
    /// - A header over the pixel limit is refused, unless `scaleDownLargeImages` is set: then
    ///   the largest N/8 whose output fits under the limit is used (refused if even 1/8 is over).
    static func make(
        header: JPEGHeader, options: DecodeOptions, plugin: String,
        scaledSize: (Int) throws(ImageKernelError) -> (width: Int, height: Int)
    ) throws(ImageKernelError) -> JPEGScalePlan {
        var plan = JPEGScalePlan(numerator: 8, finalSize: nil)
        if let box = options.thumbnailPixelSize, let thumbnail = thumbnailSize(of: header, fitting: box) {
            plan.finalSize = thumbnail
            for numerator in 1...8 {
                let size = try scaledSize(numerator)
                if size.width >= thumbnail.width && size.height >= thumbnail.height {
                    plan.numerator = numerator
                    break
                }
            }
        }
        if header.pixelCount > options.pixelLimit {
            guard options.scaleDownLargeImages else {
                throw ImageKernelError(
                    stage: .decode, plugin: plugin, code: .pixelLimitExceeded,
                    message: "the header declares \(header.width)x\(header.height) = \(header.pixelCount) pixels, over the limit of \(options.pixelLimit)")
            }
            var fitting: Int?
            for numerator in stride(from: plan.numerator, through: 1, by: -1) {
                let size = try scaledSize(numerator)
                if size.width * size.height <= options.pixelLimit {
                    fitting = numerator
                    break
                }
            }
            guard let numerator = fitting else {
                throw ImageKernelError(
                    stage: .decode, plugin: plugin, code: .pixelLimitExceeded,
                    message: "\(header.width)x\(header.height) stays over the limit of \(options.pixelLimit) pixels even at 1/8 scale")
            }
            plan.numerator = numerator
        }
        if let final = plan.finalSize {
            let size = try scaledSize(plan.numerator)
            let shrinks = size.width >= final.width && size.height >= final.height && size != (final.width, final.height)
            if !shrinks { plan.finalSize = nil }  // already exact, or the limit forced it smaller
        }
        return plan
    }

    /// The kernel's thumbnail size for the header's size in `box`, or nil when that is the image's
    /// own size (nothing to shrink).
    static func thumbnailSize(of header: JPEGHeader, fitting box: PixelSize) -> PixelSize? {
        guard box.width > 0, box.height > 0, header.width > 0, header.height > 0 else { return nil }
        let image = PixelSize(width: header.width, height: header.height)
        let thumbnail = PixelSize.thumbnail(of: image, fitting: box)
        return thumbnail == image ? nil : thumbnail
    }
}
