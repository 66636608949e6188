import Foundation
import ImageKernel

/// Decodes BMP, ICO and CUR, and encodes BMP and ICO, in Swift (no C library).
///
/// Register it with a registry to use it through the kernel; give it a PNG coder for ICO entries
/// (and BMPs) that hold PNG data:
/// ```swift
/// let coders = CoderRegistry()
/// coders.register(PNGCoder())
/// coders.register(BMPCoder(pngCoder: PNGCoder()))
/// ```
///
/// ## BMP decoding
/// - Headers: OS/2 core (12 bytes), OS/2 2.x (16-64 bytes), Windows V3 (40, and the 52/56-byte
///   variants with masks), V4 (108) and V5 (124); the first bitmap of an OS/2 bitmap array (`BA`).
/// - 1, 2, 4 and 8-bit palettes (missing entries and indices past the palette are black), 16 and
///   32-bit with default or BI_BITFIELDS / BI_ALPHABITFIELDS masks of any width (channels are
///   expanded to 8 bits as `v × 255 / max`, rounded), 24-bit, and 64-bit (linear s2.13, encoded
///   to sRGB); top-down (negative height) and bottom-up.
/// - RLE8 and RLE4 with end-of-line, end-of-bitmap and delta escapes. Pixels the runs do not
///   reach are palette index 0, **as Pillow decodes them** (browsers show them transparent); data
///   that ends early ends the bitmap, keeping what was decoded.
/// - The V5 embedded ICC profile (PROFILE_EMBEDDED) is carried as ``Image/iccProfile``;
///   linked profiles are ignored. Colours are not converted.
/// - BI_PNG (a PNG as the pixel data) decodes through the injected PNG coder.
///
/// The result is `rgb8`, or `rgba8` when the file has alpha (an alpha mask, 64-bit). As Pillow,
/// the fourth byte of a 32-bit BI_RGB BMP is not alpha.
///
/// **Refused** (`unsupported`): BI_JPEG, OS/2 Huffman 1D and RLE24, BI_PNG without a PNG coder.
/// Bit counts and compressions that do not go together, header sizes other than the above and
/// empty sizes are `corruptData`; uncompressed pixel data shorter than the header says is
/// `truncated`.
///
/// ## ICO and CUR
/// Every entry's size and depth are read from its own header (the directory's are often wrong).
/// The entry decoded is the largest (ties: the deepest colour, then the first), or, with
/// ``DecodeOptions/thumbnailPixelSize``, the smallest that still covers the thumbnail, which is
/// then scaled down. With ``DecodeOptions/allPages`` every entry is decoded, in file order, as
/// ``Image/frames`` at its own size (with ``DecodeOptions/FramesOverLimit/keepFirst``, the first
/// ``DecodeOptions/maxFrameCount`` entries only). The result is `rgba8`: BMP entries take alpha from a 32-bit
/// entry's fourth byte, else (or when that is 0 everywhere, as Windows draws it) from the 1-bit
/// AND mask. PNG entries go through the PNG coder given to ``init(pngCoder:icoSizes:)`` and are
/// `unsupported` without one.
///
/// ## Limits
/// Sizes come from the headers and are checked against ``DecodeOptions/pixelLimit`` (and, for all
/// ICO entries, the frame budgets) before any pixel buffer is allocated; uncompressed data is
/// checked to be all there before allocating too. Thumbnails are a full decode area-averaged down
/// (BMP has no reduced decode). Every read is bounds-checked: hostile input is a typed
/// ``ImageKernelError`` with plugin `"CoderBMP"`, never a trap.
///
/// ## Encoding
/// - `.bmp`: 24-bit BI_RGB for images without alpha, 32-bit BI_BITFIELDS (V4 header, alpha mask)
///   with alpha; a V5 header with the profile embedded when the image has an ICC profile.
/// - `.ico`: one entry per size in ``icoSizes`` smaller than the image, plus the image itself
///   fitted into 256×256 (never enlarged). Entries are PNG when a PNG coder was given, else
///   32-bit BMP entries with an AND mask.
///
/// A `BMPCoder` holds no mutable state; one value may be used from any number of threads at once.
public struct BMPCoder: ImageCoder {
    public let name = "CoderBMP"
    /// Decodes and encodes the PNG data inside ICO entries and BI_PNG bitmaps.
    public let pngCoder: (any ImageCoder)?
    /// The entry sizes (boxes, in pixels) an ICO encode writes besides the image's own size.
    public let icoSizes: [Int]

    /// - Parameters:
    ///   - pngCoder: a coder that decodes and encodes PNG (CoderPNG's `PNGCoder`), or nil.
    ///   - icoSizes: the ICO entry sizes to write, each at most 256; default 16, 32, 48 and 256.
    public init(pngCoder: (any ImageCoder)? = nil, icoSizes: [Int] = [16, 32, 48, 256]) {
        self.pngCoder = pngCoder
        self.icoSizes = icoSizes
    }

    /// Registers a `BMPCoder` in front of the registry's other coders, with the registry's
    /// current PNG coder (if any) for PNG data inside ICO and BMP files.
    @discardableResult
    public static func register(into registry: CoderRegistry) -> RegistrationToken {
        registry.register(BMPCoder(pngCoder: registry.coder(forEncoding: .png)))
    }

    /// True for `BM` files, OS/2 bitmap arrays (`BA` followed by `BM`), ICO and CUR.
    public func canDecode(_ data: Data) -> Bool {
        switch ImageFormat.sniff(data) {
        case .bmp, .ico: return true
        default:
            let head = [UInt8](data.prefix(16))
            return head.count == 16 && head[0] == UInt8(ascii: "B") && head[1] == UInt8(ascii: "A") && head[14] == UInt8(ascii: "B")
                && head[15] == UInt8(ascii: "M")
        }
    }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        let pngCoder = self.pngCoder
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageKernelError) -> Image in
                if bytes.count >= 4, bytes[0] == 0, bytes[1] == 0 {
                    return try ICODecoding.decode(bytes, options: options, pngCoder: pngCoder)
                }
                return try BMPDecoding.decodeFile(bytes, options: options, pngCoder: pngCoder)
            }
        }
        return try result.get()
    }

    /// BMP and ICO.
    public func canEncode(_ format: ImageFormat) -> Bool {
        format == .bmp || format == .ico
    }

    /// Encodes a BMP or an ICO (see the type's documentation). Frames after the first are not written.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageKernelError) -> Data {
        switch format {
        case .bmp: return Data(try BMPEncoding.encodeFile(image))
        case .ico: return try ICOEncoding.encode(image, sizes: icoSizes, pngCoder: pngCoder, options: options)
        default: throw ImageKernelError(stage: .encode, plugin: name, code: .unsupported, message: "\(name) cannot encode \(format)")
        }
    }
}
