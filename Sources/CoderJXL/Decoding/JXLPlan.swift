import CJXL
import ImageKernel

/// What a decode delivers, chosen from the basic info before libjxl renders anything: the pixel
/// format, the size (full or a thumbnail) and the animation's timing.
struct JXLPlan {
    let canvas: PixelSize
    let target: PixelSize
    let pixelFormat: PixelFormat
    let orientation: ExifOrientation
    let isAnimated: Bool
    /// Ticks per second of frame durations (0 for stills).
    let ticksPerSecond: Double
    let loopCount: Int?

    /// libjxl's sample layout for ``pixelFormat``.
    var jxlFormat: JxlPixelFormat {
        JxlPixelFormat(
            num_channels: UInt32(pixelFormat.channelCount), data_type: pixelFormat.bitsPerComponent == 16 ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8,
            endianness: JXL_NATIVE_ENDIAN, align: 0)
    }

    var isReduced: Bool { target != canvas }

    /// The plan for `info`, or the error refusing it: over the pixel limit, or 0-sized.
    init(_ info: JxlBasicInfo, options: DecodeOptions, coder: String) throws(ImageKernelError) {
        let canvas = PixelSize(width: Int(info.xsize), height: Int(info.ysize))
        self.canvas = canvas
        guard !canvas.isEmpty else {
            throw ImageKernelError(stage: .decode, plugin: coder, code: .corruptData, message: "JPEG XL image is \(canvas)")
        }
        let pixels = canvas.width * canvas.height
        // libjxl 0.7 renders every frame at full size: an image over the limit is refused, even
        // with scaleDownLargeImages (nothing could be saved by scaling it down).
        guard pixels <= options.pixelLimit else {
            throw ImageKernelError(
                stage: .decode, plugin: coder, code: .pixelLimitExceeded,
                message: "the header declares \(canvas) = \(pixels) pixels, over the limit of \(options.pixelLimit)")
        }
        target = options.thumbnailPixelSize.map { PixelSize.thumbnail(of: canvas, fitting: $0) } ?? canvas
        let deep = info.bits_per_sample > 8 || info.exponent_bits_per_sample > 0
        let layout: PixelFormat.Layout =
            switch (info.num_color_channels == 1, info.alpha_bits > 0) {
            case (true, false): .gray
            case (true, true): .grayAlpha
            case (false, false): .rgb
            case (false, true): .rgba
            }
        pixelFormat = PixelFormat(layout: layout, bitsPerComponent: deep && options.preserve16Bit ? 16 : 8)
        orientation = ExifOrientation(rawValue: Int(info.orientation.rawValue)) ?? .up
        isAnimated = info.have_animation != 0
        let numerator = Double(info.animation.tps_numerator), denominator = Double(info.animation.tps_denominator)
        ticksPerSecond = isAnimated && numerator > 0 && denominator > 0 ? numerator / denominator : 0
        loopCount = isAnimated ? Int(info.animation.num_loops) : nil
    }

    /// A frame's duration in seconds.
    func seconds(ticks: UInt32) -> Double {
        ticksPerSecond > 0 ? Double(ticks) / ticksPerSecond : 0
    }
}
