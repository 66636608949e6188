import CWebP
import Foundation
import ImageKernel

/// Decodes and encodes WebP with libwebp 1.2 (and its demux and mux libraries): lossy, lossless,
/// alpha, still and animated, plus incremental decoding of partial data.
///
/// Register it with a registry to use it through the kernel:
/// ```swift
/// let coders = CoderRegistry()
/// WebPCoder.register(into: coders)  // same as coders.register(WebPCoder())
/// ```
///
/// ## Decoding
/// A still lossy file without alpha decodes to `rgb8`; lossy with an ALPH chunk and every lossless
/// (VP8L) file decode to straight `rgba8` (a lossless bitstream is ARGB whatever its
/// `alpha_is_used` hint says, as the lossless spec requires). The ICCP chunk is carried on the
/// image, the EXIF chunk's orientation is reported, not applied, and the EXIF and XMP chunks are
/// carried in ``Image/metadata``.
///
/// An animated file decodes through libwebp's `WebPAnimDecoder`: the canvas starts transparent
/// black, each frame is blended and disposed as its ANMF chunk says, and every frame is a full
/// canvas in straight `rgba8`. Frame 0 is the image itself (``Image/duration``), the rest are
/// ``Image/frames``; ``Image/loopCount`` is the ANIM chunk's (0 = forever); stills have none.
/// The ANIM background colour is ignored, as libwebp and browsers do. With
/// ``DecodeOptions/firstFrameOnly`` only frame 0 is decoded. Before any frame is decoded the
/// canvas is checked against ``DecodeOptions/pixelLimit`` and frame count × canvas against
/// ``DecodeOptions/maxFrameCount`` and ``DecodeOptions/animationPixelLimit``; with
/// ``DecodeOptions/FramesOverLimit/keepFirst`` a longer animation decodes its first
/// ``DecodeOptions/maxFrameCount`` frames only.
///
/// ## Thumbnails and scaling down
/// A still image is scaled by libwebp's own scaler (`use_scaling`) to exactly
/// ``PixelSize/thumbnail(of:fitting:)``'s size. For lossy files the scaler consumes rows as the
/// VP8 decoder produces them, so a thumbnail never allocates the full canvas; a lossless
/// bitstream's back references need its whole ARGB image, which libwebp keeps however small the
/// output. ``DecodeOptions/scaleDownLargeImages`` delivers a still over the pixel limit at the
/// largest size within it the same way, as long as the canvas is within
/// ``DecodeOptions/effectiveScaleDownSourcePixelLimit`` (by default 4 × the pixel limit; a larger
/// one is refused from its header, since every source row is still decoded). Animated frames are composited at full size and area
/// averaged to the thumbnail size; an animation over the pixel limit is always refused.
///
/// Errors are ``ImageKernelError``s with plugin `"CoderWebP"` and codes `truncated`,
/// `corruptData`, `unsupported`, `pixelLimitExceeded` or `invalidArgument`.
///
/// A `WebPCoder` holds no state; one value may be used from any number of threads at once.
public struct WebPCoder: ProgressiveImageCoder {
    public let name = "CoderWebP"

    public init() {}

    /// Registers a `WebPCoder` in front of the registry's other coders.
    @discardableResult
    public static func register(into registry: CoderRegistry) -> RegistrationToken {
        registry.register(WebPCoder())
    }

    /// True when the bytes start with `RIFF....WEBP`.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.sniff(data) == .webp
    }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        let coder = name
        let result = data.withUnsafeBytes { bytes -> Result<Image, ImageKernelError> in
            Result { () throws(ImageKernelError) -> Image in
                let header = try WebPHeader(bytes, coder: coder)
                if header.isAnimated {
                    return try WebPAnimationDecoding.decode(bytes, header: header, options: options, coder: coder)
                }
                return try WebPStillDecoding.decode(bytes, header: header, options: options, coder: coder)
            }
        }
        return try result.get()
    }

    /// A new decoder that turns partial data into previews with libwebp's `WebPIDecoder`.
    ///
    /// Each preview holds the rows decoded so far (the rest is zero: black, transparent where
    /// there is alpha). Thumbnails are scaled by libwebp as in ``decode(_:options:)``. Animated
    /// files have no partial form: they give no preview and decode whole once all their bytes
    /// (the RIFF size) have arrived. The image returned when the file is complete has
    /// ``Image/isPreview`` false; bytes after it are ignored.
    public func makeProgressiveDecoder(options: DecodeOptions) -> any ProgressiveImageDecoder {
        WebPProgressiveDecoder(options: options, coder: name)
    }

    /// WebP only.
    public func canEncode(_ format: ImageFormat) -> Bool {
        format == .webp
    }

    /// Encodes a still or, when the image has ``Image/frames``, an animated WebP.
    ///
    /// Lossy by default with ``EncodeOptions/quality`` (0–1 → libwebp's 0–100);
    /// ``EncodeOptions/lossless`` writes VP8L with the pixels kept exactly (RGB under alpha 0
    /// included). ``EncodeOptions/compressionLevel`` 0–9 picks libwebp's method 0–6 (effort).
    /// Alpha is kept where the pixel format has it (premultiplied alpha is un-premultiplied
    /// first); gray becomes RGB; 16-bit samples keep their high byte. The image's ICC profile is
    /// written as an ICCP chunk, the EXIF and XMP that ``EncodeOptions/metadata`` lets through as
    /// EXIF and XMP chunks (stills only; WebP has no IPTC chunk). Animations keep each frame's duration (rounded to
    /// milliseconds) and the loop count (none means forever).
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageKernelError) -> Data {
        guard canEncode(format) else {
            throw ImageKernelError(stage: .encode, plugin: name, code: .unsupported, message: "\(name) cannot encode \(format)")
        }
        if image.isAnimated { return try WebPAnimationEncoding.encode(image, options: options, coder: name) }
        return try WebPStillEncoding.encode(image, options: options, coder: name)
    }
}
