import ImageKernel

/// How a JPEG is decoded to honour the thumbnail size and the pixel limit: the DCT scale
/// (`numerator`/8, libjpeg-turbo's scaled IDCTs) and the exact size a final area-average
/// downscale brings the DCT output to.
///
/// Only the *fast* scales are chosen for a thumbnail: 1/8, 2/8, 4/8 and 8/8. libjpeg-turbo has
/// SIMD (or trivially cheap) IDCTs, upsampling and colour conversion for those; 3/8, 5/8, 6/8 and
/// 7/8 run plain-C scaled IDCTs and colour conversion. Measured on libjpeg-turbo 2.1.5 (Debian
/// libjpeg62-turbo, x86-64), decode time relative to 8/8 for a 400×300 and a 6000×4000 4:2:0
/// photo: 1/8 0.42 and 0.30, 2/8 0.51 and 0.34, 3/8 0.75 and 0.50, 4/8 0.63 and 0.37, 5/8 1.09
/// and 0.91, 6/8 1.36 and 1.39, 7/8 1.90 and 1.83. So each slow scale costs more than the next
/// fast scale above it (5/8 about as much as 8/8), and the smallest fast scale that covers the
/// wanted size, plus the area resample, is the cheapest way there: a thumbnail never costs more
/// than a full decode.
struct JPEGScalePlan: Equatable, Sendable {
    /// The numerators with fast libjpeg-turbo paths, smallest first.
    static let fastNumerators = [1, 2, 4, 8]

    /// libjpeg's `scale_num` over a `scale_denom` of 8.
    var numerator: Int
    /// The size after the final downscale, or nil to keep the DCT output as it is.
    var finalSize: PixelSize?
    /// Whether the caller's own resize shrinks the output further (``DecodeOptions/shrinkOnLoad``).
    var shrinkFollows = false

    /// Whether the output at full scale is downscaled after the decode, here or by the caller,
    /// where libjpeg-turbo's merged chroma upsampling is about a fifth cheaper than its default
    /// (the downscale hides the difference; a full-size decode keeps djpeg's default pixels).
    var usesFastUpsampling: Bool { numerator == 8 && (finalSize != nil || shrinkFollows) }

    /// Chooses the plan, or throws `pixelLimitExceeded` before anything is allocated.
    ///
    /// - A thumbnail size (``PixelSize/thumbnail(of:fitting:)``: aspect kept, inside the box, never
    ///   upscaled) is decoded at the smallest fast scale whose output still covers it, then
    ///   area-averaged down to exactly that size. A box with a side of zero or less means full size.
    /// - A header over the pixel limit is refused, unless `scaleDownLargeImages` is set and the
    ///   header is within ``DecodeOptions/effectiveScaleDownSourcePixelLimit``: then the
    ///   delivered image is the output of the largest N/8 under the limit (refused if even 1/8 is
    ///   over), or the thumbnail when that is smaller. A slow N/8 is reached from the next fast
    ///   scale above it and the area resample, when `streamed` says the decoder feeds the resampler
    ///   a strip at a time (so the larger DCT output never exists whole); otherwise the DCT output
    ///   itself must fit the limit.
    static func make(
        header: JPEGHeader, options: DecodeOptions, plugin: String, streamed: Bool = true, orientation: ExifOrientation = .up,
        scaledSize: (Int) throws(ImageKernelError) -> (width: Int, height: Int)
    ) throws(ImageKernelError) -> JPEGScalePlan {
        func size(_ numerator: Int) throws(ImageKernelError) -> PixelSize {
            let (width, height) = try scaledSize(numerator)
            return PixelSize(width: width, height: height)
        }
        let overLimit = header.pixelCount > options.pixelLimit
        if overLimit && !options.scaleDownLargeImages {
            throw ImageKernelError(
                stage: .decode, plugin: plugin, code: .pixelLimitExceeded,
                message: "the header declares \(header.width)x\(header.height) = \(header.pixelCount) pixels, over the limit of \(options.pixelLimit)")
        }
        // DCT scaling skips most of the transform, not the entropy decoding of every source block.
        if overLimit { try options.checkScaleDownSource(width: header.width, height: header.height, plugin: plugin) }
        var wanted = options.thumbnailPixelSize.flatMap { thumbnailSize(of: header, fitting: $0) }
        let delivered = wanted ?? PixelSize(width: header.width, height: header.height)
        if overLimit && delivered.area > options.pixelLimit {
            var fitting: PixelSize?
            for numerator in stride(from: 8, through: 1, by: -1) {
                let candidate = try size(numerator)
                if candidate.area <= options.pixelLimit {
                    fitting = candidate
                    break
                }
            }
            guard let fitting else {
                throw ImageKernelError(
                    stage: .decode, plugin: plugin, code: .pixelLimitExceeded,
                    message: "\(header.width)x\(header.height) stays over the limit of \(options.pixelLimit) pixels even at 1/8 scale")
            }
            wanted = fitting
        }
        guard let wanted else {
            guard !overLimit, let shrink = options.shrinkOnLoad else { return JPEGScalePlan(numerator: 8, finalSize: nil) }
            return try shrinkPlan(shrink, header: header, orientation: orientation, size: size)
        }
        var numerator = 8
        for fast in fastNumerators {
            if try size(fast).covers(wanted) {
                numerator = fast
                break
            }
        }
        if overLimit && !streamed {
            // The whole DCT output is allocated: it must fit the limit itself.
            while numerator > 1, try size(numerator).area > options.pixelLimit { numerator -= 1 }
        }
        let output = try size(numerator)
        let shrinks = output.covers(wanted) && output != wanted
        return JPEGScalePlan(numerator: numerator, finalSize: shrinks ? wanted : nil)
    }

    /// Shrink on load: the smallest fast scale whose output still holds every pixel the caller's
    /// resize needs, and nothing resampled here. The resize then shrinks the output (unless it is
    /// exactly the size asked for), so the cheaper upsampling is used at 8/8 as for a thumbnail.
    private static func shrinkPlan(
        _ shrink: ShrinkOnLoad, header: JPEGHeader, orientation: ExifOrientation, size: (Int) throws(ImageKernelError) -> PixelSize
    ) throws(ImageKernelError) -> JPEGScalePlan {
        let full = PixelSize(width: header.width, height: header.height)
        let target = PixelSize(width: shrink.width, height: shrink.height)
        guard !target.isEmpty, shrink.isSatisfied(by: full, orientation: orientation) else { return JPEGScalePlan(numerator: 8, finalSize: nil) }
        var numerator = 8
        for fast in fastNumerators where fast < 8 {
            if shrink.isSatisfied(by: try size(fast), orientation: orientation) {
                numerator = fast
                break
            }
        }
        let oriented = orientation.swapsDimensions ? PixelSize(width: full.height, height: full.width) : full
        let shrinks = numerator < 8 || oriented.width > target.width || oriented.height > target.height
        return JPEGScalePlan(numerator: numerator, finalSize: nil, shrinkFollows: shrinks)
    }

    /// The kernel's thumbnail size for the header's size in `box`, or nil when that is the image's
    /// own size (nothing to shrink), which includes a box with a side of zero or less.
    static func thumbnailSize(of header: JPEGHeader, fitting box: PixelSize) -> PixelSize? {
        let image = PixelSize(width: header.width, height: header.height)
        guard !box.isEmpty, !image.isEmpty else { return nil }
        let thumbnail = PixelSize.thumbnail(of: image, fitting: box)
        return thumbnail == image ? nil : thumbnail
    }
}

extension PixelSize {
    var area: Int { width * height }

    /// At least as large as `other` on both sides.
    func covers(_ other: PixelSize) -> Bool { width >= other.width && height >= other.height }
}
