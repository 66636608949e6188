import CLibHEIF
import Foundation
import ImageKernel

/// Decodes HEIC, HEIF and AVIF and encodes HEIC and AVIF with libheif (Debian's 1.15: HEVC
/// through libde265 and x265, AV1 through dav1d/libaom).
///
/// ```swift
/// let coders = CoderRegistry()
/// HEIFCoder.register(into: coders)
/// ```
///
/// ## Decoding
/// The file is recognised by its `ftyp` brands, never by name. The primary image is decoded with
/// HEIF's transformations (`irot`, `imir`, `clap`) applied, as the format requires, so the image
/// reports orientation `up` and EXIF orientation is never applied a second time. Output is
/// 8-bit RGB, or RGBA when the file has an alpha plane (straight alpha; premultiplied files are
/// un-premultiplied by libheif). Files with 10 or 12 bits per sample give 8-bit samples by
/// default and 16-bit samples (scaled to the full 16-bit range) with
/// ``DecodeOptions/preserve16Bit``. Monochrome files (every coded image monochrome, read from
/// the `hvcC`/`av1C` boxes) decode to gray or gray+alpha, libheif's own gray values. The ICC
/// profile, the EXIF block and the XMP packet (a `mime` item of type `application/rdf+xml`) are
/// carried (``Image/iccProfile``, ``Image/metadata``); HEIF has no IPTC item.
///
/// Before any pixel is decoded the sizes the file declares are checked against
/// ``DecodeOptions/pixelLimit``: the transformed primary image must fit it, and every coded size
/// (each `ispe` property: images, grid tiles, thumbnails; each `grid` item's canvas, read from
/// the boxes before libheif reads the grid) may exceed it only by block padding (sides rounded
/// up to 128), so a crop is limited by the coded image it must decode. An image over the limit
/// is refused with `pixelLimitExceeded` (libheif cannot decode at a reduced size, so
/// ``DecodeOptions/scaleDownLargeImages`` cannot rescue it: for HEIF the scale-down ceiling,
/// ``DecodeOptions/effectiveScaleDownSourcePixelLimit``, is the pixel limit itself); a layered AV1 stream whose decoded
/// size turns out larger than declared is refused after decoding. Grid images are decoded with up to
/// ``decodingThreads`` libheif threads.
///
/// ## Thumbnails
/// With ``DecodeOptions/thumbnailPixelSize`` set, the smallest thumbnail stored in the file that
/// covers the box (same aspect ratio) is decoded instead of the primary image, then averaged
/// down to exactly ``PixelSize/thumbnail(of:fitting:)``; without one the full image is decoded
/// and averaged down (``Image/areaDownscaled(to:)``). ``Image/decoderNotes`` says which under
/// ``Image/MetadataKey/thumbnailSource``: `embedded` or `downscaled`.
///
/// ## Encoding
/// `.heic` (x265) and `.avif` (libaom), each only where the installed libheif has the encoder
/// (``canEncode(_:)``). ``EncodeOptions/quality`` maps to libheif's 0–100 quality;
/// ``EncodeOptions/lossless`` hands libheif 4:4:4 planes in the identity matrix (G, B, R) and
/// asks the encoder for lossless coding, so 8-bit RGB(A) decodes back exactly, in HEIC and AVIF
/// alike; ``EncodeOptions/chromaSubsampling444`` keeps full chroma in lossy files. Alpha, the ICC
/// profile, and the EXIF and XMP that ``EncodeOptions/metadata`` lets through are written; gray images are written as RGB and 16-bit
/// images as 8-bit (their high byte). ``encode(_:as:options:thumbnailFitting:)`` also stores a
/// thumbnail. An ``EncodeOptions/progressive`` flag has no meaning here and is ignored.
///
/// Both formats are written at 8 bits per sample. AVIF stays 8-bit because libheif 1.15.1
/// (Debian 12) gives libaom the wrong AV1 profile for any deeper image (fixed in 1.15.2): libaom
/// then rejects 10-bit gray and alpha ("Failed to encode frame") and fails an assertion, aborting
/// the process, on 10-bit 4:2:0 and 4:4:4 colour.
///
/// Errors are ``ImageKernelError``s with plugin `"CoderHEIF"`, code `corruptData`, `truncated`,
/// `unsupported` or `pixelLimitExceeded`, and libheif's message and error numbers.
/// A `HEIFCoder` holds no mutable state; one value may be used from any number of threads.
public struct HEIFCoder: ImageCoder {
    public let name = "CoderHEIF"
    /// Threads libheif may use to decode the tiles of a grid image (nil: libheif's default).
    public var decodingThreads: Int?

    /// Creates the coder. - Parameter decodingThreads: libheif's thread limit for grid images.
    public init(decodingThreads: Int? = nil) {
        self.decodingThreads = decodingThreads
    }

    /// Registers a `HEIFCoder` in front of the registry's other coders.
    @discardableResult
    public static func register(into registry: CoderRegistry) -> RegistrationToken {
        registry.register(HEIFCoder())
    }

    /// The version of the libheif this coder is linked with, e.g. `"1.15.1"`.
    public static var libheifVersion: String { HEIFLibrary.version }

    /// True for HEIC, HEIF and AVIF `ftyp` brands.
    public func canDecode(_ data: Data) -> Bool {
        [.heic, .heif, .avif].contains(ImageFormat.sniff(data))
    }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        try HEIFDecoding.decode(data, options: options, threads: decodingThreads, coder: name)
    }

    /// `.heic` when libheif has an HEVC encoder, `.avif` when it has an AV1 encoder.
    public func canEncode(_ format: ImageFormat) -> Bool {
        HEIFEncoding.compression(for: format) != nil
    }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageKernelError) -> Data {
        try encode(image, as: format, options: options, thumbnailFitting: nil)
    }

    /// Encodes the image and, when `thumbnailFitting` is given and the image is larger, stores a
    /// thumbnail averaged down to fit a square of that side (as cameras do), which thumbnail
    /// decodes of the file then use instead of the full image.
    public func encode(
        _ image: Image, as format: ImageFormat, options: EncodeOptions, thumbnailFitting: Int?
    ) throws(ImageKernelError) -> Data {
        guard let compression = HEIFEncoding.compression(for: format) else {
            throw ImageKernelError(stage: .encode, plugin: name, code: .unsupported, message: "\(name) cannot encode \(format) with this libheif")
        }
        return try HEIFEncoding.encode(image, compression: compression, options: options, thumbnailBox: thumbnailFitting, coder: name)
    }
}
