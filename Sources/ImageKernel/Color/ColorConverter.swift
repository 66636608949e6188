/// Where colour-managed pixels go.
public enum ColorTarget: Hashable, Sendable {
    /// sRGB: the result carries no profile (untagged means sRGB on the web, CSS Color 4).
    case sRGB
    /// The colour space of an ICC profile the caller gives (Display P3 for wide-gamut output, say);
    /// the result carries that profile.
    case profile([UInt8])

    /// A short stable name for cache keys: `srgb`, or `icc` and the profile's hash.
    public var keyComponent: String {
        switch self {
        case .sRGB: "srgb"
        case .profile(let bytes): "icc\(String(FNV1a.hash(bytes), radix: 16))"
        }
    }
}

/// How colours outside the target's gamut are brought in (ICC rendering intents).
public enum RenderingIntent: String, Hashable, Sendable, CaseIterable {
    /// Colours inside both gamuts stay as they are; others are clipped to the nearest. White
    /// points are adapted. The default, as in libvips and browsers.
    case relativeColorimetric = "relative"
    /// The whole gamut is compressed to fit, keeping relations between colours (photographs from
    /// wide-gamut spaces), where the profiles have perceptual tables.
    case perceptual
    /// As ``relativeColorimetric`` but keeping saturation over hue, where the profiles say how.
    case saturation
    /// Colours are matched exactly, white point included (proofing).
    case absoluteColorimetric = "absolute"
}

/// How a conversion is made: target, intent and black-point compensation.
public struct ColorConversion: Hashable, Sendable {
    public var target: ColorTarget
    public var intent: RenderingIntent
    /// Map the source's black to the target's black (as Photoshop and libvips do by default):
    /// keeps shadow detail when the source's black is lighter or darker than the target's.
    public var blackPointCompensation: Bool

    public init(target: ColorTarget = .sRGB, intent: RenderingIntent = .relativeColorimetric, blackPointCompensation: Bool = true) {
        self.target = target
        self.intent = intent
        self.blackPointCompensation = blackPointCompensation
    }

    /// The conversion most callers want: to sRGB, relative colorimetric, with black-point compensation.
    public static let sRGB = ColorConversion()

    /// A stable name for cache keys: `color-srgb-relative-bpc`.
    public var key: String { "color-\(target.keyComponent)-\(intent.rawValue)\(blackPointCompensation ? "-bpc" : "")" }
}

/// A colour-management plugin: turns pixels described by an ICC profile or CICP code points into
/// another colour space.
///
/// The kernel carries colour descriptions (``Image/iccProfile``, ``Image/cicp``) but converts
/// nothing itself; register a converter (`ColorLCMS`'s `LCMSColorConverter`, on lcms2) in
/// ``ImageManager/Configuration/colorConverter`` and ask for converted pixels with
/// ``ImageContext/colorConversion``. Coders that meet CMYK samples with a CMYK profile hand them to
/// ``DecodeOptions/colorConverter`` when one is set, and otherwise use a naive formula.
///
/// ## Implementation requirements
/// - **Thread safety.** Any thread may call any method at any time, concurrently: an image
///   service converts on every core. Cache what is expensive to build (profiles, transforms),
///   keyed by what it depends on, behind a lock that is never held while converting.
/// - **What an image means.** An ICC profile wins over CICP when an image has both; an image with
///   neither is sRGB and is returned as it is for an sRGB target. 16-bit samples are in host byte
///   order; alpha is never changed, and premultiplied alpha is handled (un-premultiply, convert,
///   premultiply) or refused with a typed error, never converted as colour.
/// - **Results.** The result has the source's size, layout (gray stays gray only for a gray
///   target; otherwise gray and CMYK sources become RGB) and bit depth, its orientation, EXIF,
///   frames (each converted) and notes; ``Image/iccProfile`` is the target's profile (nil for
///   sRGB) and ``Image/cicp`` is nil.
/// - **Errors.** A profile that cannot be parsed, one of the wrong class (a printer profile where
///   a display one is needed), CICP values that name no known space, or a target that cannot be
///   built end in an ``ImageKernelError`` at stage `transform` with code `unsupported` or
///   `corruptData`, naming the converter: never a crash, never silently wrong pixels.
public protocol ColorConverter: Sendable {
    /// The converter's name for errors and logs; converters with one name must convert alike.
    var name: String { get }

    /// Whether `image` needs converting for `conversion` (a tagged image whose description is
    /// not the target's). Cheap: callers ask it on every image.
    func needsConversion(_ image: Image, for conversion: ColorConversion) -> Bool

    /// `image` in the conversion's colour space (see the requirements above).
    func convert(_ image: Image, _ conversion: ColorConversion) throws(ImageKernelError) -> Image

    /// Converts CMYK samples (four 8-bit samples a pixel, as ink amounts: 0 no ink; or inverted,
    /// 255 no ink, as Adobe's APP14 JPEGs store them) through their `profile` into 8-bit RGB of
    /// the conversion's target, for coders: `rows` of `width` pixels at `sourceStride` bytes
    /// apart are written `destinationStride` apart into `destination`.
    func convertCMYK(
        profile: [UInt8], inverted: Bool, source: UnsafeRawPointer, sourceStride: Int,
        destination: UnsafeMutableRawPointer, destinationStride: Int, width: Int, rows: Int, _ conversion: ColorConversion
    ) throws(ImageKernelError)
}

extension Image {
    /// Whether the image says it is something other than sRGB: an ICC profile (which may still be
    /// an sRGB profile; ``ColorConverter/needsConversion(_:for:)`` looks inside), or CICP code
    /// points other than sRGB's. False for untagged images, which are sRGB.
    public var hasNonSRGBDescription: Bool {
        if let icc = iccProfile, !icc.isEmpty { return true }
        if let cicp, !cicp.isSRGB { return true }
        return false
    }
}

/// 64-bit FNV-1a, for short stable cache-key components of byte strings.
enum FNV1a {
    static func hash(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
