import CLCMS
import ImageKernel

extension LCMSColorConverter {
    /// JPEG Y′CbCr planes (full-range BT.601, as ``YCbCrImage`` holds them) converted from the
    /// ICC profile they carry, on the planes themselves, when the pair of profiles takes the
    /// direct matrix/shaper path; nil when it does not (convert RGB pixels instead).
    ///
    /// Each pixel becomes R′G′B′ with the chroma sample that covers it, is converted as
    /// ``convert(_:_:)`` converts 8-bit RGB (within one level of lcms), and goes back to Y′; each
    /// chroma sample becomes that of the mean of the converted colours it covers, as a JPEG
    /// encoder downsampling the converted RGB would give. So a tagged JPEG whose result is only
    /// resized can stay on the planes (decode, resize, this, encode) instead of taking RGB.
    /// The result carries the target's description (none for sRGB).
    ///
    /// - Throws: the errors ``convert(_:_:)`` gives for the same profile (unreadable, not RGB, of
    ///   a class that cannot describe an image's colours).
    public func convertPlanes(_ planes: YCbCrImage, _ conversion: ColorConversion) throws(ImageKernelError) -> YCbCrImage? {
        guard let icc = planes.iccProfile, !icc.isEmpty, conversion.target != .profile(icc) else { return nil }
        var probe = try Image(width: 1, height: 1, pixelFormat: .rgb8, pixels: [0, 0, 0])
        probe.iccProfile = icc
        let (transform, _) = try preparedTransform(for: probe, conversion)
        guard let (luma, blue, red) = transform.runPlanes(planes) else { return nil }
        countRun(direct: true)
        var target: [UInt8]?
        if case .profile(let bytes) = conversion.target { target = bytes }
        let chroma = planes.subsampling.chromaSize(width: planes.width, height: planes.height)
        return try YCbCrImage(
            luma: try Image(width: planes.width, height: planes.height, pixelFormat: .gray8, pixels: luma),
            blueDifference: try Image(width: chroma.width, height: chroma.height, pixelFormat: .gray8, pixels: blue),
            redDifference: try Image(width: chroma.width, height: chroma.height, pixelFormat: .gray8, pixels: red),
            subsampling: planes.subsampling,
            orientation: planes.orientation, iccProfile: target, metadata: planes.metadata)
    }

    /// Whether 8-bit RGB pixels (and ``convertPlanes(_:_:)``) tagged with `profile` convert
    /// through the direct matrix/shaper path for `conversion`. Builds and caches the transform on
    /// first use; false for a profile lcms cannot use or that needs no RGB transform.
    public func takesDirectPath(_ profile: [UInt8], _ conversion: ColorConversion) -> Bool {
        guard var probe = try? Image(width: 1, height: 1, pixelFormat: .rgb8, pixels: [0, 0, 0]) else { return false }
        probe.iccProfile = profile
        return (try? preparedTransform(for: probe, conversion))?.0.isDirect ?? false
    }
}
