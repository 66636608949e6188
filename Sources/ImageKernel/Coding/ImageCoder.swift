import Foundation

/// Turns encoded bytes into an ``Image`` and back.
///
/// ## Implementation requirements
/// - **Thread safety.** A coder is a shared, `Sendable` value or reference: the manager calls
///   `decode` and `encode` from many tasks at once, on background threads. Keep per-call state
///   on the stack; guard any shared state with a lock.
/// - **Sniff, never guess.** ``canDecode(_:)`` looks only at magic bytes (see
///   ``ImageFormat/sniff(_:)-(Data)``), never at a file name, and is cheap: it runs for
///   every registered coder on every decode.
/// - **Never crash, never hang.** Corrupt, truncated or hostile input throws an
///   ``ImageKernelError`` (stage `.decode`, plugin = ``name``) with a code such as
///   `corruptData`, `truncated` or `unsupported`. A C library's `longjmp` must never cross a
///   Swift frame.
/// - **Respect limits before allocating.** When the header declares more pixels than
///   ``DecodeOptions/pixelLimit`` throw `pixelLimitExceeded` before allocating the pixel buffer.
/// - **Scaling down is no way around the limits.** A coder that honours
///   ``DecodeOptions/scaleDownLargeImages`` still reads every source pixel, so it first checks the
///   header against ``DecodeOptions/effectiveScaleDownSourcePixelLimit``
///   (``DecodeOptions/checkScaleDownSource(width:height:plugin:)``) and throws
///   `pixelLimitExceeded` before reading any row of a larger source.
/// - **Thumbnails.** When ``DecodeOptions/thumbnailPixelSize`` is set return an image that fits
///   inside that box with its aspect ratio kept and is never upscaled: exactly
///   ``PixelSize/thumbnail(of:fitting:)`` (±1 for rounding). Decode straight to a nearby size
///   where the codec can (libjpeg DCT scaling, libheif thumbnails) and never hold full-size pixels
///   when it can avoid it.
/// - **Animation budgets.** A coder that decodes several frames (an animation, ICO entries or TIFF
///   pages with ``DecodeOptions/allPages``) calls ``DecodeOptions/checkAnimationBudget(frameCount:canvas:plugin:)``
///   with the declared frame count before decoding any, and decodes exactly the number it returns:
///   with ``DecodeOptions/FramesOverLimit/keepFirst`` that is the first
///   ``DecodeOptions/maxFrameCount`` frames, and the frames after them are never decoded.
/// - **Shrink on load.** ``DecodeOptions/shrinkOnLoad`` is a hint: a codec with a cheap scaled
///   decode may use it, returning an image that ``ShrinkOnLoad/isSatisfied(by:orientation:)``
///   accepts; any other codec decodes at full size. Never resample to honour it.
/// - **Report, don't apply.** Report EXIF orientation and carry the ICC profile; do not rotate
///   pixels or convert colours.
/// - **Encode** throws `unsupported` for formats ``canEncode(_:)`` denies.
public protocol ImageCoder: Sendable {
    /// A short name for errors and logs, e.g. `"CoderPNG"`.
    var name: String { get }
    /// Whether this coder can decode these bytes, judged by their first bytes only.
    func canDecode(_ data: Data) -> Bool
    /// Decodes the bytes into an image.
    func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image
    /// Whether this coder can encode images into the format.
    func canEncode(_ format: ImageFormat) -> Bool
    /// Encodes the image into the format.
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageKernelError) -> Data
}

extension ImageCoder {
    public func canEncode(_ format: ImageFormat) -> Bool { false }
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageKernelError) -> Data {
        throw ImageKernelError(stage: .encode, plugin: name, code: .unsupported, message: "\(name) cannot encode \(format)")
    }
}

/// A coder that can also decode partial data into previews while the bytes arrive.
///
/// ## Implementation requirements
/// Everything ``ImageCoder`` requires, plus: ``makeProgressiveDecoder(options:)`` returns a new,
/// independent decoder for each load; it is used from one task at a time.
public protocol ProgressiveImageCoder: ImageCoder {
    /// A new incremental decoder for one image.
    func makeProgressiveDecoder(options: DecodeOptions) -> any ProgressiveImageDecoder
}

/// Decodes one image incrementally.
///
/// ## Implementation requirements
/// - Used from one task at a time (not concurrently), so it may keep mutable state.
/// - ``append(_:)`` receives each new chunk once, in order. It returns a preview
///   (``Image/isPreview`` true) when more of the image became visible, or nil.
/// - Corrupt data throws; a later call after a throw keeps throwing. Never crash.
public protocol ProgressiveImageDecoder: AnyObject {
    /// Feeds the next chunk of bytes; returns a preview when one is available.
    func append(_ chunk: Data) throws(ImageKernelError) -> Image?
}

/// Options for a decode.
public struct DecodeOptions: Sendable, Hashable {
    /// Decode to a size that fits inside this box (aspect ratio kept, never upscaled), using the
    /// codec's own scaling where it can. See ``PixelSize/thumbnail(of:fitting:)``. A box with a
    /// side of zero or less means full size, exactly as nil does.
    public var thumbnailPixelSize: PixelSize?
    /// The size a resize after the decode brings the image to: a codec with cheap scaling may
    /// decode smaller, as long as the image keeps every pixel that resize needs (see
    /// ``ShrinkOnLoad``). Ignored when ``thumbnailPixelSize`` is set.
    public var shrinkOnLoad: ShrinkOnLoad?
    /// Refuse images whose header declares more pixels than this. Default 256 megapixels.
    public var pixelLimit: Int
    /// Keep 16-bit samples (else keep the high byte, as libpng's `strip_16`).
    public var preserve16Bit: Bool
    /// Scale images over ``pixelLimit`` down to fit instead of refusing them (SDWebImage's
    /// `scaleDownLargeImages`), where the codec can do so without the full buffer. Only sources
    /// up to ``effectiveScaleDownSourcePixelLimit`` pixels are scaled down; larger ones are still
    /// refused from the header.
    public var scaleDownLargeImages: Bool
    /// The most source pixels a decode reads to scale an image down (``scaleDownLargeImages``): a
    /// header over ``pixelLimit`` and over this is refused with `pixelLimitExceeded` before any
    /// row is read. Scaling down needs little memory but still inflates, filters or transforms
    /// every source pixel, so without a ceiling a small file declaring 100000×100000 would cost
    /// minutes of CPU. Nil (the default) means ``defaultScaleDownSourcePixelFactor`` × ``pixelLimit``;
    /// see ``effectiveScaleDownSourcePixelLimit``. A value at or below ``pixelLimit`` turns scaling
    /// down off.
    public var scaleDownSourcePixelLimit: Int?
    /// Decode only the first frame of a multi-frame source.
    public var firstFrameOnly: Bool
    /// Refuse animations with more frames than this (before decoding any), or with
    /// ``framesOverLimit`` ``FramesOverLimit/keepFirst`` decode only this many. Default 10,000.
    public var maxFrameCount: Int
    /// What a decode does with an animation of more frames than ``maxFrameCount``: refuse it
    /// (``FramesOverLimit/fail``, the default) or keep its first ``maxFrameCount`` frames
    /// (``FramesOverLimit/keepFirst``, imgproxy's `max_animation_frames`).
    public var framesOverLimit: FramesOverLimit = .fail
    /// Refuse animations whose frame count × canvas pixels exceeds this (before decoding any):
    /// every composited frame is a full canvas. Default 256 megapixels (1 GiB of RGBA).
    public var animationPixelLimit: Int
    /// The scale factor to record on the image (`@2x` → 2).
    public var scale: Double
    /// Decode every image of a multi-image file that is not an animation (ICO/CUR entries,
    /// TIFF pages) as ``Image/frames``, in file order, each at its own size; by default only the
    /// one the coder picks (e.g. the largest ICO entry) is decoded. Ignored with
    /// ``firstFrameOnly``; the frame budgets (``maxFrameCount``, ``animationPixelLimit``) apply.
    public var allPages: Bool = false
    /// Decode the image's embedded thumbnail (the largest, when there are several) instead of
    /// the image itself, where the file stores one and the coder can read it (HEIF and AVIF:
    /// CoderHEIF); a file without one decodes as usual. The decoded image notes
    /// ``Image/MetadataKey/thumbnailSource`` `embedded`. Coders that know no embedded thumbnails
    /// ignore it (imgproxy's `enforce_thumbnail`).
    public var embeddedThumbnail: Bool = false
    /// Converts colour the coder cannot carry as it is: a coder meeting CMYK samples with a CMYK
    /// ICC profile hands them to this converter for sRGB (``ColorConverter/convertCMYK(profile:inverted:source:sourceStride:destination:destinationStride:width:rows:_:)``)
    /// and delivers RGB without the profile. Without one (the default) CMYK becomes RGB by the
    /// naive formula and the CMYK profile is dropped. The manager sets it from
    /// ``ImageManager/Configuration/colorConverter``. Options compare equal by the converter's name.
    public var colorConverter: (any ColorConverter)? {
        get { colorConverterBox?.converter }
        set { colorConverterBox = newValue.map(ColorConverterBox.init) }
    }
    private var colorConverterBox: ColorConverterBox?

    public static let defaultPixelLimit = 256_000_000
    /// The default ceiling on the source of a scale-down, as a multiple of ``pixelLimit``: 4, a
    /// source twice the limit's size on each side (1.024 gigapixels with the default limit). A
    /// scale-down reads each source pixel about as cheaply as a full decode does, so this keeps its
    /// worst case within about four times the time of a full decode at the pixel limit, the most a
    /// decode without scaling may cost.
    public static let defaultScaleDownSourcePixelFactor = 4
    public static let defaultMaxFrameCount = 10_000
    public static let defaultAnimationPixelLimit = 256_000_000

    public init(
        thumbnailPixelSize: PixelSize? = nil, pixelLimit: Int = DecodeOptions.defaultPixelLimit,
        preserve16Bit: Bool = false, scaleDownLargeImages: Bool = false, firstFrameOnly: Bool = false, scale: Double = 1,
        maxFrameCount: Int = DecodeOptions.defaultMaxFrameCount, animationPixelLimit: Int = DecodeOptions.defaultAnimationPixelLimit,
        shrinkOnLoad: ShrinkOnLoad? = nil, scaleDownSourcePixelLimit: Int? = nil
    ) {
        self.thumbnailPixelSize = thumbnailPixelSize
        self.shrinkOnLoad = shrinkOnLoad
        self.pixelLimit = pixelLimit
        self.preserve16Bit = preserve16Bit
        self.scaleDownLargeImages = scaleDownLargeImages
        self.scaleDownSourcePixelLimit = scaleDownSourcePixelLimit
        self.firstFrameOnly = firstFrameOnly
        self.scale = scale
        self.maxFrameCount = maxFrameCount
        self.animationPixelLimit = animationPixelLimit
    }
}

extension DecodeOptions {
    /// What a decode does with an animation (or multi-page file) of more frames than
    /// ``DecodeOptions/maxFrameCount``.
    public enum FramesOverLimit: Sendable, Hashable {
        /// Refuse it with `pixelLimitExceeded` before decoding any frame.
        case fail
        /// Decode only its first ``DecodeOptions/maxFrameCount`` frames, in order, with their
        /// durations and the loop count, and never the frames after them; the animation pixel
        /// budget counts the frames kept. A `maxFrameCount` of 1 gives a still of frame 0.
        case keepFirst
    }
}

/// A converter in ``DecodeOptions``, equal to another of the same name (the options stay Hashable).
private struct ColorConverterBox: Hashable, Sendable {
    let converter: any ColorConverter
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.converter.name == rhs.converter.name }
    func hash(into hasher: inout Hasher) { hasher.combine(converter.name) }
}

/// Options for an encode.
public struct EncodeOptions: Sendable, Hashable {
    /// Lossy quality from 0 (smallest) to 1 (best). Default 0.9.
    public var quality: Double
    /// Lossless compression effort, 0–9 (zlib levels for PNG). Default 6.
    public var compressionLevel: Int
    /// Write a progressive (JPEG) or interlaced (PNG) file.
    public var progressive: Bool
    /// JPEG: no chroma subsampling (4:4:4) instead of 4:2:0.
    public var chromaSubsampling444: Bool
    /// The colour an image with alpha is composited over for formats without alpha (RGB, 8-bit).
    public var backgroundColor: RGBColor
    /// Encode losslessly in formats that have both modes (WebP, AVIF, HEIC): the decoded pixels
    /// equal the input's and ``quality`` is ignored. Formats that are always lossless (PNG, GIF
    /// for images of at most 256 colours) or never (JPEG) ignore it.
    public var lossless: Bool
    /// Which of the image's EXIF, XMP and IPTC the output carries (see ``MetadataPolicy``).
    /// Default ``MetadataPolicy/none``: a library that serves images should not pass on GPS
    /// positions by default; the `imagekernel` CLI asks for ``MetadataPolicy/all``, as
    /// `vips copy` keeps everything. Coders write what their format holds (see <doc:KeepingMetadata>).
    public var metadata: MetadataPolicy

    public init(
        quality: Double = 0.9, compressionLevel: Int = 6, progressive: Bool = false,
        chromaSubsampling444: Bool = false, backgroundColor: RGBColor = .white, lossless: Bool = false,
        metadata: MetadataPolicy = .none
    ) {
        self.metadata = metadata
        self.quality = quality
        self.compressionLevel = compressionLevel
        self.progressive = progressive
        self.chromaSubsampling444 = chromaSubsampling444
        self.backgroundColor = backgroundColor
        self.lossless = lossless
    }
}

/// An opaque 8-bit RGB colour.
public struct RGBColor: Sendable, Hashable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }
    public static let white = RGBColor(red: 255, green: 255, blue: 255)
    public static let black = RGBColor(red: 0, green: 0, blue: 0)
}
