extension DecodeOptions {
    /// The ceiling on the source of a scale-down in force: ``scaleDownSourcePixelLimit`` when set,
    /// else ``defaultScaleDownSourcePixelFactor`` × ``pixelLimit`` (saturating at `Int.max`).
    public var effectiveScaleDownSourcePixelLimit: Int {
        if let scaleDownSourcePixelLimit { return scaleDownSourcePixelLimit }
        let (product, overflow) = max(0, pixelLimit).multipliedReportingOverflow(by: Self.defaultScaleDownSourcePixelFactor)
        return overflow ? .max : product
    }

    /// Throws `pixelLimitExceeded` (stage `.decode`, `plugin`) when a `width`×`height` source is
    /// too large to be scaled down: over ``effectiveScaleDownSourcePixelLimit``. A coder calls it
    /// from the header, once it knows the source is over ``pixelLimit`` and
    /// ``scaleDownLargeImages`` is set, before it reads any row.
    public func checkScaleDownSource(width: Int, height: Int, plugin: String) throws(ImageKernelError) {
        let ceiling = effectiveScaleDownSourcePixelLimit
        let (pixels, overflow) = max(0, width).multipliedReportingOverflow(by: max(0, height))
        guard overflow || pixels > ceiling else { return }
        let origin = scaleDownSourcePixelLimit == nil
            ? "\(Self.defaultScaleDownSourcePixelFactor)x the pixel limit of \(pixelLimit)" : "scaleDownSourcePixelLimit"
        throw ImageKernelError(
            stage: .decode, plugin: plugin, code: .pixelLimitExceeded,
            message: "the image is \(width)x\(height) (\(overflow ? "more than Int.max" : "\(pixels)") pixels), over the pixel limit of "
                + "\(pixelLimit) and over the ceiling of \(ceiling) source pixels that scaling down may read (\(origin))")
    }
}
