import CLCMS
import ImageKernel

/// ImageKernel's colour-management plugin on lcms2 (Little CMS 2.14, Debian's `liblcms2-dev`).
///
/// Converts 8- and 16-bit gray, gray+alpha, RGB and RGBA images (alpha untouched) from the colour
/// description they carry (an ICC profile, CICP code points, or none: sRGB) to sRGB or to a
/// profile the caller gives, with any ICC rendering intent and optional black-point
/// compensation; and CMYK samples through their profile to RGB, for coders.
///
/// ```swift
/// let manager = ImageManager(configuration: .init(
///     coders: CoderRegistry([JPEGCoder(), PNGCoder()]),
///     colorConverter: LCMSColorConverter(),
///     colorConversion: .sRGB))   // every result in sRGB, untagged
/// ```
///
/// - **What is converted.** An ICC profile wins over CICP. A profile that renders like sRGB
///   (checked once per profile on a grid of colours) needs no conversion and is dropped for an
///   sRGB target. Gray images stay gray for an sRGB target (sRGB's tone curve: what a browser
///   assumes for untagged gray) and become RGB for an RGB profile target.
/// - **CICP.** Primaries 1, 4–9, 11, 12 and 22 and transfers 1, 4, 5, 6, 8, 13–16 and 18 of
///   ITU-T H.273 become matrix/shaper profiles. PQ and HLG are mapped with reference white
///   (203 cd/m², BT.2408) at 1.0 and brighter light clipped: no tone mapping. Other values are a
///   typed `unsupported` error.
/// - **CMYK.** ``convertCMYK(profile:inverted:source:sourceStride:destination:destinationStride:width:rows:_:)``
///   converts through the file's CMYK profile (Adobe's inverted samples included). An RGB image
///   that still carries a CMYK profile was made CMYK-to-RGB by a coder's naive formula; it is
///   left as it is and loses the profile for an sRGB target.
/// - **Speed.** Profiles, transforms and sRGB verdicts are built once and cached (64 of each at
///   most); large images are converted in row bands on every core. 8-bit RGB and RGBA between
///   two RGB matrix/shaper profiles (Display P3, Adobe RGB, ProPhoto, Rec. 2020, sRGB variants;
///   parametric or tabulated curves) take a direct path: tone tables with the matrix folded in,
///   three table reads and two additions a pixel, several times lcms's speed. It is used for a
///   pair of profiles only after matching lcms's own transform within one level on a fixed probe
///   set (a 33-level grid and ramps) when the transform is built; everything else (LUT profiles,
///   gray, CMYK, 16 bits, absolute colorimetric, black-point compensation that moves black) runs
///   through lcms. ``conversionCounts`` tells which path ran.
/// - **Errors.** A profile lcms cannot read, one of a class that cannot be a source or target,
///   a profile whose colour space does not match the pixels, or premultiplied alpha are typed
///   errors at stage `transform`.
public struct LCMSColorConverter: ColorConverter {
    public let name = "lcms2"
    private let cache: TransformCache

    /// A converter with its own caches.
    ///
    /// - Parameter allowsDirectPath: whether 8-bit RGB conversions between matrix/shaper profiles
    ///   may take the direct path (within one level of lcms, proven per profile pair). `false`
    ///   runs every conversion through lcms, for its exact arithmetic or to compare.
    public init(allowsDirectPath: Bool = true) {
        cache = TransformCache(limit: 64, plugin: "lcms2", allowsDirect: allowsDirectPath)
    }

    /// Conversions run since the converter was made, by the path that ran them.
    public struct ConversionCounts: Sendable, Hashable {
        /// Runs (one per frame, or per ``convertCMYK(profile:inverted:source:sourceStride:destination:destinationStride:width:rows:_:)``
        /// call) through the direct matrix/shaper path.
        public var direct: Int
        /// Runs through lcms's transform.
        public var lcms: Int

        public init(direct: Int, lcms: Int) {
            self.direct = direct
            self.lcms = lcms
        }
    }

    /// How many conversions took the direct path and how many ran through lcms (for tests,
    /// benchmarks and metrics; counted under a lock, once per frame, never per pixel).
    public var conversionCounts: ConversionCounts {
        let counts = cache.runCounts
        return ConversionCounts(direct: counts.direct, lcms: counts.lcms)
    }

    public func needsConversion(_ image: Image, for conversion: ColorConversion) -> Bool {
        if let icc = image.iccProfile, !icc.isEmpty {
            if case .profile(let target) = conversion.target, target == icc { return false }
            guard let profile = try? cache.profile(.icc(icc)) else { return true }  // convert() reports why
            if profile.space == Int32(CLCMS_SPACE_CMYK.rawValue) { return false }  // see "CMYK" above
            return conversion.target == .sRGB ? !cache.isSRGB(icc) : true
        }
        if let cicp = image.cicp { return conversion.target == .sRGB ? !cicp.isSRGB : true }
        return conversion.target != .sRGB
    }

    /// Whether an RGB or gray ICC profile renders colours as sRGB does (within one 8-bit level on
    /// a grid of test colours); remembered per profile. False for profiles lcms cannot read.
    public func rendersAsSRGB(_ profile: [UInt8]) -> Bool { cache.isSRGB(profile) }

    public func convert(_ image: Image, _ conversion: ColorConversion) throws(ImageKernelError) -> Image {
        var result = try convertFrame(image, conversion)
        result.frames = []
        for frame in image.frames {
            result.frames.append(ImageFrame(image: try convertFrame(frame.image, conversion), duration: frame.duration))
        }
        return result
    }

    public func convertCMYK(
        profile: [UInt8], inverted: Bool, source: UnsafeRawPointer, sourceStride: Int,
        destination: UnsafeMutableRawPointer, destinationStride: Int, width: Int, rows: Int, _ conversion: ColorConversion
    ) throws(ImageKernelError) {
        let cmyk = try cache.profile(.icc(profile))
        guard cmyk.space == Int32(CLCMS_SPACE_CMYK.rawValue) else {
            throw error(.unsupported, "the profile given with CMYK samples describes another colour space")
        }
        let target = try targetSource(conversion.target, gray: false)
        let transform = try cache.transform(.init(
            source: .icc(profile), sourcePixels: (inverted ? CLCMS_CMYK8_INVERTED : CLCMS_CMYK8).rawValue,
            target: target, targetPixels: CLCMS_RGB8.rawValue,
            intent: conversion.intent, blackPointCompensation: conversion.blackPointCompensation))
        cache.countRun(direct: transform.isDirect)
        transform.run(source, sourceStride: sourceStride, into: destination, destinationStride: destinationStride, width: width, rows: rows)
    }

    /// The cached transform for an image's pixels, and the pixel format they become.
    func preparedTransform(for image: Image, _ conversion: ColorConversion) throws(ImageKernelError) -> (LCMSTransform, PixelFormat) {
        guard let sourcePixels = image.pixelFormat.lcmsPixels else {
            throw error(.unsupported, "premultiplied alpha cannot be colour-managed; un-premultiply first")
        }
        let gray = image.pixelFormat.isGray
        let source = try sourceDescription(image, gray: gray)
        let target = try targetSource(conversion.target, gray: gray)
        var format = image.pixelFormat
        if gray, case .icc = target {
            // A gray image to an RGB target profile becomes RGB; to a gray one it stays gray.
            if try cache.profile(target).space != Int32(CLCMS_SPACE_GRAY.rawValue) { format = format.asRGB }
        }
        let transform = try cache.transform(.init(
            source: source, sourcePixels: sourcePixels.rawValue, target: target, targetPixels: format.lcmsPixels!.rawValue,
            intent: conversion.intent, blackPointCompensation: conversion.blackPointCompensation))
        return (transform, format)
    }

    /// Counts one conversion run by the path it took (``conversionCounts``).
    func countRun(direct: Bool) { cache.countRun(direct: direct) }

    /// One frame's pixels converted, with its description replaced by the target's.
    private func convertFrame(_ image: Image, _ conversion: ColorConversion) throws(ImageKernelError) -> Image {
        guard image.isConsistent else { throw error(.invalidArgument, "the image's buffer does not hold its \(image.width)x\(image.height) pixels") }
        let (transform, format) = try preparedTransform(for: image, conversion)
        cache.countRun(direct: transform.isDirect)
        let rowBytes = image.width * format.bytesPerPixel
        var output = [UInt8](repeating: 0, count: rowBytes * image.height)
        image.pixels.withUnsafeBytes { pixels in
            output.withUnsafeMutableBytes { out in
                transform.run(
                    pixels.baseAddress!, sourceStride: image.bytesPerRow, into: out.baseAddress!, destinationStride: rowBytes,
                    width: image.width, rows: image.height)
            }
        }
        var result = image
        result.pixelFormat = format
        result.bytesPerRow = rowBytes
        result.pixels = output
        result.cicp = nil
        switch conversion.target {
        case .sRGB: result.iccProfile = nil
        case .profile(let bytes): result.iccProfile = bytes
        }
        return result
    }

    /// What the image's pixels mean, checked against their layout.
    private func sourceDescription(_ image: Image, gray: Bool) throws(ImageKernelError) -> ProfileSource {
        if let icc = image.iccProfile, !icc.isEmpty {
            let profile = try cache.profile(.icc(icc))
            let expected = gray ? CLCMS_SPACE_GRAY : CLCMS_SPACE_RGB
            guard profile.space == Int32(expected.rawValue) else {
                throw error(.unsupported, "the ICC profile's colour space does not match the image's \(gray ? "gray" : "RGB") pixels")
            }
            guard profile.isUsable(asOutput: false) else {
                throw error(.unsupported, "the ICC profile's class cannot describe an image's colours")
            }
            return .icc(icc)
        }
        if let cicp = image.cicp { return .cicp(cicp, gray: gray) }
        return .sRGB(gray: gray)
    }

    private func targetSource(_ target: ColorTarget, gray: Bool) throws(ImageKernelError) -> ProfileSource {
        switch target {
        case .sRGB: return .sRGB(gray: gray)
        case .profile(let bytes):
            let profile = try cache.profile(.icc(bytes))
            let space = profile.space
            guard space == Int32(CLCMS_SPACE_RGB.rawValue) || space == Int32(CLCMS_SPACE_GRAY.rawValue), profile.isUsable(asOutput: true) else {
                throw error(.unsupported, "the target ICC profile is not an RGB or gray display profile")
            }
            return .icc(bytes)
        }
    }

    private func error(_ code: ImageKernelError.Code, _ message: String) -> ImageKernelError {
        ImageKernelError(stage: .transform, plugin: name, code: code, message: message)
    }
}

extension LCMSColorConverter {
    /// A Display P3 ICC profile (P3 primaries, D65 white, the sRGB curve) built by lcms: the
    /// target for wide-gamut output (`.profile(LCMSColorConverter.displayP3Profile())`).
    public static func displayP3Profile() throws(ImageKernelError) -> [UInt8] {
        try profileBytes(for: .displayP3)
    }

    /// An ICC profile for CICP code points (an RGB matrix/shaper profile built by lcms).
    public static func profileBytes(for cicp: CICP) throws(ImageKernelError) -> [UInt8] {
        let profile = try cicp.profile(gray: false, plugin: "lcms2")
        guard let bytes = profile.iccBytes() else {
            throw ImageKernelError(stage: .transform, plugin: "lcms2", code: .internalError, message: "lcms could not write the profile for CICP \(cicp)")
        }
        return bytes
    }
}
