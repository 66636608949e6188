import Foundation
import ImageKernel

/// Decodes and encodes TIFF with libtiff 4.5: strips and tiles, every codec Debian's libtiff
/// has, one page or all of them.
///
/// Register it with a registry to use it through the kernel:
/// ```swift
/// let coders = CoderRegistry()
/// TIFFCoder.register(into: coders)  // same as coders.register(TIFFCoder())
/// ```
///
/// ## Decoding
/// Classic TIFF and BigTIFF, both byte orders, strips or tiles, planar configuration 1 or 2,
/// either fill order, and whatever compression libtiff was built with (none, LZW, deflate,
/// PackBits, JPEG incl. YCbCr and old-style JPEG, WebP, ZSTD, LZMA, CCITT G3/G4, LogLuv).
/// Pixel formats:
/// - 8-bit gray and RGB, with or without alpha: `gray8`, `grayAlpha8`, `rgb8`, `rgba8`.
///   16-bit samples (and 9–15-bit gray, widened to 16 by bit replication; signed 16-bit gray,
///   clipped at 0) give `gray16` … `rgba16` with ``DecodeOptions/preserve16Bit``, else keep
///   their high byte (the kernel's rule, libpng's `strip_16`).
///   MinIsWhite is inverted. Associated (premultiplied) alpha is un-premultiplied; unassociated
///   alpha is kept as stored; other extra samples are dropped.
/// - CMYK (8 or 16 bits) becomes `rgb8` by the naive formula (R = (255−C)(255−K)/255, as Pillow;
///   no ICC conversion).
/// - Everything else libtiff can show — palette, 1/2/4-bit, YCbCr, CIE Lab, LogLuv — goes
///   through libtiff's `TIFFRGBAImage` at 8 bits (`gray8`, `rgb8` or `rgba8`).
/// - Refused (`unsupported`): floating-point samples, and what `TIFFRGBAImage` cannot show.
///
/// The Orientation tag is reported as ``Image/orientation`` and not applied, as every coder of
/// the kernel does. The ICC profile is carried in ``Image/iccProfile``.
///
/// Limits are checked from the directory's tags before libtiff allocates any pixel buffer: the
/// page's width × height against ``DecodeOptions/pixelLimit`` (a TIFF whose header lies about a
/// 100000×100000 image never reaches `TIFFReadRGBA*`), and libtiff's own allocations are bounded
/// through `TIFFOpenOptionsSetMaxSingleMemAlloc`. Images over the limit are refused even with
/// ``DecodeOptions/scaleDownLargeImages`` (libtiff has no reduced decode).
///
/// Pages: page 0 by default (``Pages/first``). A coder made with ``Pages/all``, or a decode with
/// ``DecodeOptions/allPages``, returns every further page of page 0's size and pixel format as ``Image/frames`` (duration 0), unless
/// ``DecodeOptions/firstFrameOnly`` is set; other pages (reduced-resolution subfiles, masks,
/// pages of other sizes) are skipped and counted in the `tiff.pages.skipped` decoder note. Page
/// count × size is checked against ``DecodeOptions/maxFrameCount`` and
/// ``DecodeOptions/animationPixelLimit`` first; with ``DecodeOptions/FramesOverLimit/keepFirst``
/// only the first ``DecodeOptions/maxFrameCount`` pages are read.
///
/// Thumbnails are the kernel's area average (``Image/areaDownscaled(to:)``, pixel for pixel):
/// computed strip by strip (or tile row by tile row) while decoding for the layouts read directly
/// (8/16-bit gray and RGB with or without alpha, CMYK), so a thumbnail never holds the full-size
/// page; after a full decode for the `TIFFRGBAImage` layouts.
///
/// libtiff's errors and warnings go to a handler of each call, never to stderr or libtiff's
/// process-wide handlers: errors become the message of the ``ImageKernelError`` (plugin
/// `"CoderTIFF"`, codes `truncated`, `corruptData`, `unsupported` or `pixelLimitExceeded`), the
/// first warnings of a successful decode are in the `tiff.warnings` decoder note.
///
/// ## Encoding
/// One page, deflate (default) or LZW with horizontal prediction, from `gray8`, `grayAlpha8`,
/// `rgb8`, `rgba8` and their 16-bit forms (stored as they are: lossless), alpha as an
/// unassociated extra sample (associated for premultiplied images), the ICC profile embedded.
/// ``EncodeOptions/compressionLevel`` is the zlib level for deflate.
///
/// A `TIFFCoder` holds no mutable state; one value may be used from any number of threads at once.
public struct TIFFCoder: ImageCoder {
    /// `"CoderTIFF"`, the plugin name in errors and logs.
    public let name = "CoderTIFF"
    /// Which pages a decode returns.
    public let pages: Pages
    /// How encoded pixels are compressed.
    public let compression: Compression

    /// Which pages of a multi-page TIFF a decode returns.
    public enum Pages: Sendable, Hashable {
        /// Page 0 only.
        case first
        /// Page 0 and every further page of the same size and pixel format, as frames.
        case all
    }

    /// The lossless codec ``TIFFCoder/encode(_:as:options:)`` writes.
    public enum Compression: Sendable, Hashable {
        /// zlib's deflate (`COMPRESSION_ADOBE_DEFLATE`), level from ``EncodeOptions/compressionLevel``.
        case deflate
        /// LZW, read by every TIFF reader.
        case lzw
    }

    /// A coder returning `pages` on decode and writing `compression` on encode.
    public init(pages: Pages = .first, compression: Compression = .deflate) {
        self.pages = pages
        self.compression = compression
    }

    /// Registers a `TIFFCoder` in front of the registry's other coders.
    @discardableResult
    public static func register(into registry: CoderRegistry, _ coder: TIFFCoder = TIFFCoder()) -> RegistrationToken {
        registry.register(coder)
    }

    /// True when the bytes start with a TIFF or BigTIFF header in either byte order.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.sniff(data) == .tiff
    }

    /// Decodes page 0 (and, with ``Pages/all``, the pages like it); see the type's documentation.
    public func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        let (coder, pages) = (name, pages)
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageKernelError) -> Image in try TIFFDecoding.decode(bytes, options: options, pages: pages, coder: coder) }
        }
        return try result.get()
    }

    /// TIFF only.
    public func canEncode(_ format: ImageFormat) -> Bool {
        format == .tiff
    }

    /// Encodes one page (frames are not written); see the type's documentation for the layouts.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageKernelError) -> Data {
        guard canEncode(format) else {
            throw ImageKernelError(stage: .encode, plugin: name, code: .unsupported, message: "\(name) cannot encode \(format)")
        }
        return try TIFFEncoding.encode(image, compression: compression, options: options, coder: name)
    }
}
