/// A decoded image: one contiguous pixel buffer plus what the decoder learned about it.
///
/// `Image` is a value type; copies share the pixel buffer until one is mutated.
/// Rows run top to bottom; each row starts `bytesPerRow` bytes after the previous one
/// (`bytesPerRow >= width * pixelFormat.bytesPerPixel`, padding allowed).
public struct Image: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var pixelFormat: PixelFormat
    public var bytesPerRow: Int
    /// The pixel buffer: `bytesPerRow * height` bytes.
    public var pixels: [UInt8]
    /// EXIF orientation as read from the file; never applied by decoders.
    public var orientation: ExifOrientation
    /// The embedded ICC profile, if the source had one. With ``cicp`` it is the image's colour
    /// description; an image with neither is sRGB (CSS Color 4). Decoders never convert pixels
    /// to sRGB on their own: a ``ColorConverter`` does, when asked.
    public var iccProfile: [UInt8]?
    /// The colour description as code points (HEIF/AVIF `nclx`, PNG `cICP`), when the source gave
    /// one; ``iccProfile`` wins when both are there.
    public var cicp: CICP?
    /// The format the image was decoded from (``ImageFormat/unknown`` for synthesised images).
    public var sourceFormat: ImageFormat
    /// Points per pixel hint: 2 for `name@2x.png`, 3 for `@3x`, else 1 (as SDWebImage).
    public var scale: Double
    /// Frames after the first for multi-frame sources; empty for still images. Every frame is a
    /// full canvas of the same size as this image, composited (disposal and blending applied).
    public var frames: [ImageFrame]
    /// How long this image shows, in seconds, as frame 0 of an animation (the file's value, not
    /// clamped; 0 for stills and when the file gives none).
    public var duration: Double
    /// The animation's loop count as the file stores it: 0 means forever; nil when the file says
    /// nothing (stills, a GIF without a NETSCAPE block, a WebP without an ANIM chunk). A WebP
    /// plays n times; browsers play a GIF once and then repeat it n times.
    public var loopCount: Int?
    /// True for a preview produced from partial data by a progressive decoder.
    public var isPreview: Bool
    /// The EXIF, XMP and IPTC blocks the source carried, for coders that read them; what an
    /// encode writes of them is ``EncodeOptions/metadata``'s choice (see <doc:KeepingMetadata>).
    public var metadata: ImageMetadata
    /// The raw EXIF block as the file stores it (from the TIFF header on, no `Exif\0\0`
    /// prefix): ``metadata``'s ``ImageMetadata/exif``.
    public var exif: [UInt8]? {
        get { metadata.exif }
        set { metadata.exif = newValue }
    }
    /// What the decoder reports about how it produced the image, under keys of its choosing,
    /// e.g. ``MetadataKey/thumbnailSource``. Empty unless a coder has something to say.
    public var decoderNotes: [String: String]

    /// Creates an image, checking that the buffer is large enough.
    public init(
        width: Int, height: Int, pixelFormat: PixelFormat, bytesPerRow: Int? = nil, pixels: [UInt8],
        orientation: ExifOrientation = .up, iccProfile: [UInt8]? = nil, sourceFormat: ImageFormat = .unknown,
        scale: Double = 1, frames: [ImageFrame] = [], isPreview: Bool = false, duration: Double = 0, loopCount: Int? = nil,
        exif: [UInt8]? = nil, decoderNotes: [String: String] = [:], cicp: CICP? = nil, metadata: ImageMetadata = ImageMetadata()
    ) throws(ImageKernelError) {
        let tight = width * pixelFormat.bytesPerPixel
        let rowBytes = bytesPerRow ?? tight
        guard width > 0, height > 0, rowBytes >= tight, pixels.count >= rowBytes * height else {
            throw ImageKernelError(
                stage: .decode, code: .invalidArgument,
                message: "pixel buffer of \(pixels.count) bytes does not hold \(width)x\(height) \(pixelFormat) at \(rowBytes) bytes per row")
        }
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.bytesPerRow = rowBytes
        self.pixels = pixels
        self.orientation = orientation
        self.iccProfile = iccProfile
        self.cicp = cicp
        self.sourceFormat = sourceFormat
        self.scale = scale
        self.frames = frames
        self.isPreview = isPreview
        self.duration = duration
        self.loopCount = loopCount
        self.metadata = metadata
        if let exif { self.metadata.exif = exif }
        self.decoderNotes = decoderNotes
    }

    /// Well-known keys of ``decoderNotes``.
    public enum MetadataKey {
        /// Where a thumbnail came from: `embedded` (a reduced image stored in the file),
        /// `scaled-decode` (the codec decoded at a reduced size) or `downscaled` (full decode,
        /// then ``Image/areaDownscaled(to:)``).
        public static let thumbnailSource = "thumbnail.source"
    }

    /// Whether the fields describe the buffer: positive size, rows at least as long as the pixels
    /// they hold, and a buffer that holds every row. The public fields are mutable, so an image a
    /// plugin built by hand can break this; the manager checks every decoded image with it.
    public var isConsistent: Bool {
        let tight = width * pixelFormat.bytesPerPixel
        return width > 0 && height > 0 && bytesPerRow >= tight && pixels.count >= bytesPerRow * (height - 1) + tight
    }

    /// Memory cost in bytes, used by the memory cache's cost limit.
    public var cost: Int { bytesPerRow * height + frames.reduce(0) { $0 + $1.image.cost } }

    /// Pixel count (width × height).
    public var pixelCount: Int { width * height }
}

/// One frame of a multi-frame image.
public struct ImageFrame: Sendable, Equatable {
    public var image: Image
    /// Display duration in seconds (0 when unknown).
    public var duration: Double
    public init(image: Image, duration: Double) {
        self.image = image
        self.duration = duration
    }
}

/// A size in pixels.
public struct PixelSize: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    /// Parses `WxH` (`256x256`); a single number `N` means `NxN`.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        if parts.count == 1, let n = Int(parts[0]), n > 0 {
            self.init(width: n, height: n)
        } else if parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 {
            self.init(width: w, height: h)
        } else {
            return nil
        }
    }
    public var description: String { "\(width)x\(height)" }
    /// Whether a side is zero or negative; an empty thumbnail box means "full size".
    public var isEmpty: Bool { width <= 0 || height <= 0 }
}

extension PixelSize {
    /// The size a thumbnail of an image of size `image` has when asked to fit `box`: aspect ratio
    /// kept, inside the box, never larger than the image, at least 1×1 (SDWebImage's thumbnail rule).
    ///
    /// A box with a side of zero or less is *no box*: the image keeps its full size (as
    /// SDWebImage's `CGSizeZero` thumbnail size means "full size"). Every coder, the manager's
    /// cache keys and ``DecodeOptions/thumbnailPixelSize`` follow this rule.
    public static func thumbnail(of image: PixelSize, fitting box: PixelSize) -> PixelSize {
        guard !box.isEmpty, !image.isEmpty else { return image }
        let scale = min(1, min(Double(box.width) / Double(image.width), Double(box.height) / Double(image.height)))
        guard scale < 1 else { return image }
        return PixelSize(
            width: min(box.width, max(1, Int((Double(image.width) * scale).rounded()))),
            height: min(box.height, max(1, Int((Double(image.height) * scale).rounded()))))
    }
}

extension Image {
    /// The scale factor a file name implies: `@2x` → 2, `@3x` → 3, else 1 (SDWebImage's rule).
    public static func scale(fromFileName name: String) -> Double {
        let stem = name.split(separator: "/").last.map(String.init) ?? name
        let base = stem.split(separator: ".").first.map(String.init) ?? stem
        if base.hasSuffix("@2x") { return 2 }
        if base.hasSuffix("@3x") { return 3 }
        return 1
    }
}
