import CGIF
import Foundation
import ImageKernel

/// Decodes and encodes GIF with giflib 5: still and animated, local and global colour tables,
/// transparency and every disposal method.
///
/// Register it with a registry to use it through the kernel:
/// ```swift
/// let coders = CoderRegistry()
/// GIFCoder.register(into: coders)  // same as coders.register(GIFCoder())
/// ```
///
/// ## Decoding
/// Every frame is a full canvas of the logical screen's size in straight `rgba8`, composited
/// as browsers do (see ``GIFCanvas`` for the rules): the canvas starts transparent black, the
/// transparent index leaves it alone, disposal 2 clears the frame's rectangle to transparent
/// black and disposal 3 restores what was under it, and frames reaching past the logical
/// screen are clipped. Transparent pixels are (0, 0, 0, 0).
///
/// Frame 0 is the image itself (``Image/duration``), the rest are ``Image/frames``.
/// ``Image/loopCount`` is the first NETSCAPE2.0 block's value as stored (0 = forever; browsers
/// play a file with loop count n once plus n repeats), nil without one. Durations are the GCE
/// delays, except that in an animation a delay of 0 or 10 ms plays as 100 ms, the rule of
/// Chrome, Firefox and Safari (and SDWebImage's GIF coder).
///
/// The file's blocks are read before any pixel is decoded: the logical screen grown to hold
/// every frame (what a decoder that does not clip would allocate; a frame's rows are
/// decompressed even when clipped) is checked against ``DecodeOptions/pixelLimit``, and frame
/// count × screen against ``DecodeOptions/maxFrameCount`` and ``DecodeOptions/animationPixelLimit``. ``DecodeOptions/firstFrameOnly`` decodes frame 0 only;
/// with ``DecodeOptions/FramesOverLimit/keepFirst`` a longer animation decodes its first
/// ``DecodeOptions/maxFrameCount`` frames only, and the blocks after them are not read (a file cut
/// after them decodes).
/// Thumbnails are area averaged from the composited frames (GIF has no reduced decode).
///
/// Errors are ``ImageKernelError``s with plugin `"CoderGIF"` and codes `truncated`,
/// `corruptData` or `pixelLimitExceeded`, with giflib's message where giflib failed.
///
/// A `GIFCoder` holds no state; one value may be used from any number of threads at once.
public struct GIFCoder: ImageCoder {
    public let name = "CoderGIF"

    public init() {}

    /// Registers a `GIFCoder` in front of the registry's other coders.
    @discardableResult
    public static func register(into registry: CoderRegistry) -> RegistrationToken {
        registry.register(GIFCoder())
    }

    /// True when the bytes start with `GIF87a` or `GIF89a`.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.sniff(data) == .gif
    }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        let coder = name
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageKernelError) -> Image in try GIFDecoding.decode(bytes, options: options, coder: coder) }
        }
        return try result.get()
    }

    /// GIF only.
    public func canEncode(_ format: ImageFormat) -> Bool {
        format == .gif
    }

    /// Encodes a still or, when the image has ``Image/frames``, an animated GIF89a.
    ///
    /// Each frame gets its own colour table: every colour when a frame has at most 256 (255 with
    /// transparency), which makes the round trip exact, else a median-cut palette (no
    /// dithering). Pixels with alpha below 128 become transparent. Animations keep durations
    /// (in hundredths of a second) and the loop count (none means forever); frames must all have
    /// the canvas size. Quality and compression options do not apply.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageKernelError) -> Data {
        guard canEncode(format) else {
            throw ImageKernelError(stage: .encode, plugin: name, code: .unsupported, message: "\(name) cannot encode \(format)")
        }
        return try GIFEncoding.encode(image, options: options, coder: name)
    }
}
