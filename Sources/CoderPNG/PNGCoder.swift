import Foundation
import ImageKernel

/// Decodes and encodes PNG with libpng 1.6, including progressive decoding of partial data.
///
/// Register it with a registry to use it through the kernel:
/// ```swift
/// let coders = CoderRegistry()
/// PNGCoder.register(into: coders)  // same as coders.register(PNGCoder())
/// ```
///
/// Decoding expands every PNG colour type and bit depth to 8 bits per sample (16 with
/// ``DecodeOptions/preserve16Bit``): gray → `gray8`, gray+alpha → `grayAlpha8`, RGB → `rgb8`,
/// RGBA → `rgba8`, palette → `rgb8` (`rgba8` with tRNS), and gray or RGB with tRNS gain an alpha
/// channel. 16-bit samples are kept in host byte order, or reduced to their high byte (libpng's
/// `strip_16`). No gamma correction is applied; an iCCP profile is carried on the image and an
/// eXIf orientation is reported (not applied).
///
/// ## Thumbnails and scaling down
///
/// PNG has no reduced-size decode, so a ``DecodeOptions/thumbnailPixelSize`` is honoured while
/// decoding: libpng delivers the image row by row and each row is added into a box (area)
/// average as it arrives, so a thumbnail holds the output buffer plus a few rows, never the
/// full-size image. For large images it takes less time than a full decode (no full-size buffer
/// to fill); for small ones reduced only a little (say 400×300 to 256×192) the averaging costs
/// up to about a fifth more than the full decode alone. The size is exactly
/// ``PixelSize/thumbnail(of:fitting:)``'s (aspect kept, inside the box, never enlarged); a box
/// with a side of zero or less means full size. Output column `x` of `w` averages source columns
/// `x·W/w ..< (x+1)·W/w` (rows likewise), so every source pixel counts once. Where there is
/// alpha, colour is averaged premultiplied and unpremultiplied afterwards: transparent pixels do
/// not darken edges. All output formats (gray, gray+alpha, RGB, RGBA; 8 and 16 bit) keep their
/// format.
///
/// The pixel limit is checked from IHDR before any pixel buffer is allocated; no side may be
/// longer than the limit either. An image over the limit is refused (`pixelLimitExceeded`)
/// unless ``DecodeOptions/scaleDownLargeImages`` is set: then it is delivered at the largest
/// size of the same aspect ratio within the limit (or at the thumbnail size if that is
/// smaller), averaged down row by row like a thumbnail, so the full-size buffer never exists.
/// Every source row is still inflated, unfiltered and averaged, so a source over
/// ``DecodeOptions/effectiveScaleDownSourcePixelLimit`` (by default 4 × the pixel limit) is
/// refused from IHDR with `pixelLimitExceeded`, before any row is read.
///
/// Adam7 interlaced files spread each row over seven passes, so their thumbnails are averaged
/// from a full decode (same filter, same pixels), and an interlaced file over the limit is
/// refused even with `scaleDownLargeImages`. The progressive decoder likewise averages its full
/// buffer for thumbnails and refuses images over the limit. APNG animation frames are not
/// decoded: the default image is returned.
///
/// Errors are ``ImageKernelError``s with stage `.decode`/`.encode`, plugin `"CoderPNG"`, code
/// `corruptData`, `truncated`, `pixelLimitExceeded`, `unsupported` or `invalidArgument`, and
/// libpng's own message. libpng's `longjmp` never crosses a Swift frame.
///
/// A `PNGCoder` holds no state; one value may be used from any number of threads at once.
public struct PNGCoder: ProgressiveImageCoder {
    public let name = "CoderPNG"

    public init() {}

    /// Registers a `PNGCoder` in front of the registry's other coders.
    @discardableResult
    public static func register(into registry: CoderRegistry) -> RegistrationToken {
        registry.register(PNGCoder())
    }

    /// True when the bytes start with the eight-byte PNG signature.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.sniff(data) == .png
    }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        try PNGDecoding.decode(data, options: options, coder: name)
    }

    /// A new decoder that turns partial data into previews; see ``ProgressiveImageDecoder``.
    ///
    /// Each preview holds the rows decoded so far (rows not decoded yet are zero: black, and
    /// transparent where there is alpha); for an Adam7 interlaced file the early passes fill
    /// whole blocks, so the first previews are coarse versions of the whole image. The image
    /// returned when IEND arrives has ``Image/isPreview`` false. Bytes after IEND are ignored.
    public func makeProgressiveDecoder(options: DecodeOptions) -> any ProgressiveImageDecoder {
        PNGProgressiveDecoder(options: options, coder: name)
    }

    /// PNG only.
    public func canEncode(_ format: ImageFormat) -> Bool {
        format == .png
    }

    /// Encodes any of the kernel's pixel formats (gray, gray+alpha, RGB, RGBA at 8 or 16 bits;
    /// premultiplied alpha is un-premultiplied first) with zlib level
    /// ``EncodeOptions/compressionLevel``; ``EncodeOptions/progressive`` writes an Adam7
    /// interlaced file. The image's ICC profile is written as iCCP; the EXIF and XMP that
    /// ``EncodeOptions/metadata`` lets through as eXIf and an uncompressed iTXt chunk keyed
    /// `XML:com.adobe.xmp` (PNG has no IPTC chunk).
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageKernelError) -> Data {
        guard canEncode(format) else {
            throw ImageKernelError(stage: .encode, plugin: name, code: .unsupported, message: "\(name) cannot encode \(format)")
        }
        return try PNGEncoding.encode(image, options: options, coder: name)
    }
}
