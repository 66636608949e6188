import Foundation
import ImageKernel

/// Decodes and encodes JPEG XL with libjxl 0.7: stills and animations, codestreams and
/// containers.
///
/// Register it with a registry to use it through the kernel:
/// ```swift
/// let coders = CoderRegistry()
/// JXLCoder.register(into: coders)  // same as coders.register(JXLCoder())
/// ```
///
/// ## Decoding
/// - Pixel formats: `gray8`, `grayAlpha8`, `rgb8`, `rgba8` from libjxl's 8-bit output (libjxl
///   rounds deeper and float samples); with ``DecodeOptions/preserve16Bit``, images of more than
///   8 bits (and float ones) give `gray16` … `rgba16`. Premultiplied alpha is un-premultiplied by
///   libjxl. Spot colours are rendered by libjxl; CMYK files come out as libjxl 0.7 gives them.
/// - Animations: every displayed frame, coalesced by libjxl (blended and disposed, a full
///   canvas each), with its duration in seconds (ticks ÷ ticks per second) and the file's loop
///   count (0 = forever). The frames are counted from their headers first (no pixel is
///   rendered) and checked against ``DecodeOptions/maxFrameCount`` and
///   ``DecodeOptions/animationPixelLimit``; with ``DecodeOptions/FramesOverLimit/keepFirst``
///   a longer animation renders its first ``DecodeOptions/maxFrameCount`` frames only.
/// - Orientation: the codestream's orientation (the EXIF values) is reported as
///   ``Image/orientation`` and not applied (libjxl's `keep_orientation`), as every coder of the
///   kernel does.
/// - Colour: the pixels are in the colour space libjxl returns them in. When libjxl describes it
///   with an encoded colour space CICP can name, it is ``Image/cicp`` (sRGB, Display P3,
///   BT.2020 PQ/HLG, linear…); otherwise ``Image/iccProfile`` holds the profile libjxl gives for
///   the pixels (the file's own ICC for images stored in their original space).
/// - Limits: width × height from the header is checked against ``DecodeOptions/pixelLimit``
///   before libjxl renders anything (its image planes, allocated outside any memory manager in
///   0.7, are bounded by that); what libjxl allocates through its memory manager (decoder state,
///   boxes, ICC, JPEG reconstruction) is under a budget (64 MiB until the header is known, then
///   96 bytes a pixel plus 128 MiB): an allocation past it makes libjxl fail, reported as
///   `pixelLimitExceeded`.
/// - Thumbnails (``DecodeOptions/thumbnailPixelSize``) are the kernel's area average
///   (``Image/areaDownscaled(to:)``) of each full frame: libjxl 0.7 has no reduced decode (its
///   DC-only progressive step still renders into a full-size buffer, and its image-out callbacks
///   hold a full float frame: 178 MB against 71 MB for the buffer at 12 MP), so a thumbnail costs
///   a full decode. Images over the pixel limit are refused even with
///   ``DecodeOptions/scaleDownLargeImages``, for the same reason.
///
/// Errors are ``ImageKernelError``s with plugin `"CoderJXL"`: `truncated` (the data ends early),
/// `corruptData` (libjxl refused it), `pixelLimitExceeded`.
///
/// ## Encoding
/// Stills and animations (durations in milliseconds ticks, the loop count) from `gray8`,
/// `grayAlpha8`, `rgb8`, `rgba8` and their 16-bit forms at their own depth.
/// ``EncodeOptions/lossless`` writes modular lossless (decodes to the same samples); otherwise
/// VarDCT at the distance cjxl gives the quality (``EncodeOptions/quality`` 0.9 → distance 1).
/// Effort is ``effort``, else ``EncodeOptions/compressionLevel`` clamped to 1…9.
/// ``EncodeOptions/progressive`` writes the DC progressively and AC in passes, so a streaming
/// decode (``makeProgressiveDecoder(options:)``) shows a whole image early. The ICC profile
/// is embedded; without one, the code points are written when libjxl can name them, else sRGB.
///
/// ## Threads
/// libjxl runs on a `JxlThreadParallelRunner` of ``threads`` workers made for each call and
/// joined before it returns (0: libjxl works on the calling thread). No pool outlives a call, so
/// concurrent decodes never share or wait for one; the cost is creating the threads per call
/// (tens of microseconds).
///
/// A `JXLCoder` holds no mutable state; one value may be used from any number of threads at once.
public struct JXLCoder: ProgressiveImageCoder {
    /// `"CoderJXL"`, the plugin name in errors and logs.
    public let name = "CoderJXL"
    /// Worker threads libjxl uses for one decode or encode (0: the calling thread only).
    public let threads: Int
    /// libjxl's encoder effort (1 fastest … 9 smallest), or nil for ``EncodeOptions/compressionLevel``.
    public let effort: Int?

    /// A coder with `threads` libjxl workers per call (default: the active processors, at most 4)
    /// and the given encoder effort.
    public init(threads: Int? = nil, effort: Int? = nil) {
        self.threads = max(0, threads ?? min(4, ProcessInfo.processInfo.activeProcessorCount))
        self.effort = effort
    }

    /// Registers a `JXLCoder` in front of the registry's other coders.
    @discardableResult
    public static func register(into registry: CoderRegistry, _ coder: JXLCoder = JXLCoder()) -> RegistrationToken {
        registry.register(coder)
    }

    /// True when the bytes start with a JPEG XL codestream or container signature.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.sniff(data) == .jxl
    }

    /// Decodes the image (all frames of an animation unless ``DecodeOptions/firstFrameOnly``);
    /// see the type's documentation.
    public func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        let (coder, threads) = (name, threads)
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageKernelError) -> Image in try JXLDecoding.decode(bytes, options: options, threads: threads, coder: coder) }
        }
        return try result.get()
    }

    /// An incremental decoder fed with libjxl's streaming input: previews of a still image at each
    /// progression step libjxl reports (the DC image, then passes) and, after 64 KiB more input
    /// without one, what libjxl renders of the groups decoded so far; the final image once its
    /// last frame is complete. Animations come whole at the end.
    public func makeProgressiveDecoder(options: DecodeOptions) -> any ProgressiveImageDecoder {
        JXLProgressiveDecoder(options: options, threads: threads, coder: name)
    }

    /// The original JPEG of a file made by lossless JPEG transcoding (`cjxl photo.jpg`, which
    /// stores the JPEG's coefficients and a `jbrd` reconstruction box), rebuilt by libjxl byte
    /// for byte; nil for a JPEG XL that holds no JPEG.
    public func reconstructedJPEG(from data: Data) throws(ImageKernelError) -> Data? {
        let (coder, threads) = (name, threads)
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageKernelError) -> Data? in try JXLJPEGReconstruction.jpeg(bytes, threads: threads, coder: coder) }
        }
        return try result.get()
    }

    /// JPEG XL only.
    public func canEncode(_ format: ImageFormat) -> Bool {
        format == .jxl
    }

    /// Encodes the image and its frames; see the type's documentation.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageKernelError) -> Data {
        guard canEncode(format) else {
            throw ImageKernelError(stage: .encode, plugin: name, code: .unsupported, message: "\(name) cannot encode \(format)")
        }
        return try JXLEncoding.encode(image, options: options, effort: effort, threads: threads, coder: name)
    }
}
