import Foundation
import ImageKernel
import Transformers

/// imgproxy's processing options (its open-source edition), with imgproxy's defaults: what an
/// imgproxy URL asks for, parsed by ``ImgproxyPath``. The geometry (``ImgproxyGeometry``) and the
/// render (``ImgproxyTransformer``) follow imgproxy's processing pipeline.
public struct ImgproxyOptions: Sendable, Hashable {
    /// `resizing_type`: how the image meets the box.
    public enum ResizingType: String, Sendable, Hashable, CaseIterable {
        case fit, fill, fillDown = "fill-down", force, auto
    }

    /// A `gravity`: a side, corner or the centre with offsets, `sm` (smart) or `fp` (focus point
    /// at fractions `x`, `y`).
    public struct GravityOption: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            case ce, no, so, ea, we, noea, nowe, soea, sowe, sm, fp, re
        }
        public var kind: Kind
        /// Offsets (pixels when at least 1, else a fraction of the size), or the focus point.
        public var x: Double = 0
        public var y: Double = 0

        public init(_ kind: Kind, x: Double = 0, y: Double = 0) {
            self.kind = kind
            self.x = x
            self.y = y
        }

        var key: String { kind == .sm ? "sm" : "\(kind.rawValue):\(keyNumber(x)):\(keyNumber(y))" }
    }

    /// `extend` and `extend_aspect_ratio`: on or off, and where the image sits.
    public struct Extend: Sendable, Hashable {
        public var enabled = false
        /// `gravity`: where crops to the result are taken.
    public var gravity = GravityOption(.ce)
    }

    /// `resizing_type` (default `fit`).
    public var resizingType: ResizingType = .fit
    /// `width`, `height`: the box; 0 takes the other side's scale.
    public var width = 0
    public var height = 0
    /// `min-width`, `min-height`: the result is at least this large (then cropped to `width`/`height`).
    public var minWidth = 0
    public var minHeight = 0
    /// `zoom`: multiplies the scale on each axis.
    public var zoomWidth = 1.0
    public var zoomHeight = 1.0
    /// `dpr`: multiplies the box, padding and offsets (never past the source unless `enlarge`).
    public var dpr = 1.0
    /// `enlarge`: whether a raster source may grow.
    public var enlarge = false
    /// `extend`: the result is the whole box, the image placed by its gravity.
    public var extend = Extend()
    /// `extend_aspect_ratio`: the result takes the box's aspect ratio.
    public var extendAspectRatio = Extend()
    public var gravity = GravityOption(.ce)
    /// `crop` before the resize: pixels when at least 1, else a fraction of the source.
    public var cropWidth = 0.0
    public var cropHeight = 0.0
    /// The crop's own gravity; nil takes ``gravity``.
    public var cropGravity: GravityOption?
    /// `trim`: the threshold (nil: no trim) and the colour to cut (nil: the corner's).
    public var trimThreshold: Double?
    public var trimColor: RGBAColor?
    /// `padding` in CSS order, before `dpr`.
    public var padding = (top: 0, right: 0, bottom: 0, left: 0)
    /// `auto_rotate`, `rotate` (multiples of 90), `flip`.
    public var autoRotate = true
    public var rotate = 0
    public var flipHorizontal = false
    public var flipVertical = false
    /// `background`: flattens alpha over this colour.
    public var background: RGBAColor?
    /// `blur`, `sharpen` (sigma) and `pixelate` (block side).
    public var blur = 0.0
    public var sharpen = 0.0
    public var pixelate = 0
    /// `watermark`: opacity (0: none), position, offsets and scale.
    public var watermarkOpacity = 0.0
    public var watermarkPosition = GravityOption(.ce)
    public var watermarkScale = 0.0
    /// `strip_metadata`, `keep_copyright`, `strip_color_profile`: nil leaves it to the service's
    /// settings (`IMGPROXY_STRIP_METADATA`, `IMGPROXY_KEEP_COPYRIGHT`, `IMGPROXY_STRIP_COLOR_PROFILE`);
    /// applied through ``ProxyRequest/Output/metadata`` and ``ProxyRequest/Output/keepsColorProfile``.
    /// `preserve_hdr`: a source of more than 8 bits per sample keeps 16 through the render when
    /// the result's format can carry them (PNG, TIFF, JPEG XL: ``HDRPolicy``); nil leaves it to
    /// ``ImgproxySettings/preserveHDR``.
    /// `enforce_thumbnail`: decode a HEIF or AVIF source's embedded thumbnail instead of its image
    /// (``DecodeOptions/embeddedThumbnail``); nil leaves it to ``ImgproxySettings/enforceThumbnail``.
    public var stripMetadata: Bool?
    public var keepCopyright: Bool?
    public var stripColorProfile: Bool?
    public var preserveHDR: Bool?
    public var enforceThumbnail: Bool?
    /// `quality` (0: the service's default for the format).
    public var quality = 0
    /// `format_quality`: quality by format, `max_bytes`: the result's byte budget.
    public var formatQuality: [ImageFormat: Int] = [:]
    public var maxBytes = 0
    /// `format` (or the source's `@ext`/`.ext`); nil negotiates.
    public var format: ImageFormat?
    /// `skip_processing`: sources in these formats are answered as they are; `raw`: every source is.
    public var skipProcessing: [ImageFormat] = []
    public var raw = false
    /// `cachebuster`: part of the result key.
    public var cacheBuster: String?
    /// `expires`: a Unix time after which the URL is refused.
    public var expires: Int?
    /// `filename` and `return_attachment`: the `Content-Disposition`.
    public var filename: String?
    public var returnAttachment = false
    /// `max_result_dimension` (a security option): the result's longest side; 0 for none.
    public var maxResultDimension = 0
    /// The other security options, over the service's limits for this URL: `max_src_resolution`
    /// (megapixels), `max_src_file_size` (bytes), `max_animation_frames` and
    /// `max_animation_frame_resolution` (megapixels; 0 checks all frames together against the
    /// source resolution, as imgproxy does).
    public var sourceLimits = SourceLimits()

    public init() {}

    public static func == (a: Self, b: Self) -> Bool { a.key == b.key && a.outputKey == b.outputKey }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    /// What changes the pixels, in one spelling: equal keys render equal images.
    public var key: String {
        var parts = [
            "rt:\(resizingType.rawValue)", "s:\(width):\(height)", "m:\(minWidth):\(minHeight)",
            "z:\(keyNumber(zoomWidth)):\(keyNumber(zoomHeight))", "dpr:\(keyNumber(dpr))",
            "el:\(enlarge ? 1 : 0)", "ex:\(extend.enabled ? "1:" + extend.gravity.key : "0")",
            "exar:\(extendAspectRatio.enabled ? "1:" + extendAspectRatio.gravity.key : "0")", "g:\(gravity.key)",
        ]
        if cropWidth > 0 || cropHeight > 0 {
            parts.append("c:\(keyNumber(cropWidth)):\(keyNumber(cropHeight)):\(cropGravity?.key ?? "-")")
        }
        if let trimThreshold { parts.append("t:\(keyNumber(trimThreshold)):\(trimColor.map { "\($0)" } ?? "-")") }
        if padding != (0, 0, 0, 0) { parts.append("pd:\(padding.top):\(padding.right):\(padding.bottom):\(padding.left)") }
        if rotate % 360 != 0 { parts.append("rot:\((rotate % 360 + 360) % 360)") }
        if !autoRotate { parts.append("ar:0") }
        if flipHorizontal || flipVertical { parts.append("fl:\(flipHorizontal ? 1 : 0):\(flipVertical ? 1 : 0)") }
        if let background { parts.append("bg:\(background)") }
        if blur > 0 { parts.append("bl:\(keyNumber(blur))") }
        if sharpen > 0 { parts.append("sh:\(keyNumber(sharpen))") }
        if pixelate > 1 { parts.append("pix:\(pixelate)") }
        if watermarkOpacity > 0 {
            parts.append("wm:\(keyNumber(watermarkOpacity)):\(watermarkPosition.key):\(keyNumber(watermarkScale))")
        }
        if maxResultDimension > 0 { parts.append("mrd:\(maxResultDimension)") }
        if enforceThumbnail == true { parts.append("eth:1") }
        if preserveHDR == true { parts.append("ph:1") }
        if let limits = sourceLimits.keyPart { parts.append(limits) }
        return parts.joined(separator: "/")
    }

    /// What changes the encoded bytes besides the pixels (the cache buster included, as in
    /// imgproxy, so a new one is a new result).
    var outputKey: String {
        let qualities = formatQuality.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ",")
        return "q\(quality);fq\(qualities);mb\(maxBytes);cb\(cacheBuster ?? "")"
    }
}

/// A number in a key: integers without a fraction (`2`), others in Swift's shortest form (`1.5`).
func keyNumber(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
    return String(value)
}
