import ImageKernel

/// The size a PNG decode delivers, chosen from IHDR before any pixel buffer exists.
struct PNGDecodePlan: Equatable, Sendable {
    /// The size IHDR declares.
    var sourceSize: PixelSize
    /// The size of the delivered image: the source size, the thumbnail size, or (with
    /// ``DecodeOptions/scaleDownLargeImages``) a size under the pixel limit, whichever is smallest.
    var outputSize: PixelSize

    /// Whether the delivered image is smaller than the source.
    var isScaled: Bool { outputSize != sourceSize }

    /// Chooses the output size, or throws `pixelLimitExceeded` when the header is over the
    /// limit and may not (or, for an interlaced file, cannot) be scaled down row by row.
    ///
    /// - A ``DecodeOptions/thumbnailPixelSize`` gives ``PixelSize/thumbnail(of:fitting:)``: aspect
    ///   kept, inside the box, never enlarged; a box with a side of zero or less means full size.
    /// - A header over ``DecodeOptions/pixelLimit`` is refused unless scaling down is allowed and
    ///   the header is within ``DecodeOptions/effectiveScaleDownSourcePixelLimit``; then the output is the thumbnail if that fits the limit, else the largest size with the
    ///   source's aspect (each side rounded down) whose pixel count is within the limit.
    static func make(width: Int, height: Int, interlaced: Bool, options: DecodeOptions, coder: String) throws(ImageKernelError) -> PNGDecodePlan {
        let source = PixelSize(width: width, height: height)
        var output = options.thumbnailPixelSize.map { PixelSize.thumbnail(of: source, fitting: $0) } ?? source
        let limit = options.pixelLimit
        if width * height > limit {
            guard options.scaleDownLargeImages, limit >= 1 else {
                throw PNGFailure.pixelLimit(width: width, height: height, limit: limit, coder: coder)
            }
            // Row by row needs little memory but inflates, unfilters and averages every source row.
            try options.checkScaleDownSource(width: width, height: height, plugin: coder)
            guard !interlaced else {
                throw ImageKernelError(
                    stage: .decode, plugin: coder, code: .pixelLimitExceeded,
                    message: "the PNG is \(width)x\(height) (\(width * height) pixels), over the pixel limit of \(limit), and "
                        + "interlaced: Adam7 needs the full-size buffer, so it cannot be scaled down within the limit")
            }
            if output.width * output.height > limit { output = fitting(source, limit: limit) }
        }
        return PNGDecodePlan(sourceSize: source, outputSize: output)
    }

    /// The largest size with `size`'s aspect ratio (sides rounded down, at least 1) of at most
    /// `limit` pixels. A side so long that aspect cannot be kept is cut to fit.
    static func fitting(_ size: PixelSize, limit: Int) -> PixelSize {
        let scale = min(1, (Double(limit) / (Double(size.width) * Double(size.height))).squareRoot())
        var width = min(size.width, max(1, Int(Double(size.width) * scale)))
        var height = min(size.height, max(1, Int(Double(size.height) * scale)))
        // Floating-point rounding may leave a few pixels too many; a one-pixel-high strip more.
        if width * height > limit { width = max(1, limit / height) }
        if width * height > limit { height = max(1, limit / width) }
        return PixelSize(width: width, height: height)
    }
}
