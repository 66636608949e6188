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
    /// - A thumbnail size picks the smallest N/8 (N = 1…8) whose output still covers it; the
    ///   output is then downscaled to exactly cover it (aspect ratio kept). Never upscales.
    /// - A header over the pixel limit is refused, unless `scaleDownLargeImages` is set: then
    ///   the largest N/8 whose output fits under the limit is used (refused if even 1/8 is over).
    static func make(
        header: JPEGHeader, options: DecodeOptions, plugin: String,
        scaledSize: (Int) throws(ImageKernelError) -> (width: Int, height: Int)
    ) throws(ImageKernelError) -> JPEGScalePlan {
        var plan = JPEGScalePlan(numerator: 8, finalSize: nil)
        if let target = options.thumbnailPixelSize, let cover = coverSize(of: header, for: target) {
            plan.finalSize = cover
            for numerator in 1...8 {
                let size = try scaledSize(numerator)
                if size.width >= cover.width && size.height >= cover.height {
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

    /// The smallest size with the image's aspect ratio that covers `target`, or nil when the
    /// image is no larger than that already.
    static func coverSize(of header: JPEGHeader, for target: PixelSize) -> PixelSize? {
        guard target.width > 0, target.height > 0, header.width > 0, header.height > 0 else { return nil }
        let factor = max(Double(target.width) / Double(header.width), Double(target.height) / Double(header.height))
        guard factor < 1 else { return nil }
        let width = max(1, Int((Double(header.width) * factor).rounded()))
        let height = max(1, Int((Double(header.height) * factor).rounded()))
        guard width < header.width || height < header.height else { return nil }
        return PixelSize(width: width, height: height)
    }
}
