import CJXL
import Foundation
import ImageKernel

/// Writes a still or an animation with libjxl's encoder: lossless (modular, the samples exactly)
/// or lossy (VarDCT at the butteraugli distance ``distance(quality:)`` gives), the image's own
/// depth (8 or 16 bits), the ICC profile or the code points as the colour description.
enum JXLEncoding {
    static func encode(_ image: Image, options: EncodeOptions, effort: Int?, threads: Int, coder: String) throws(ImageKernelError) -> Data {
        func fail(_ message: String, _ code: ImageKernelError.Code = .internalError) -> ImageKernelError {
            ImageKernelError(stage: .encode, plugin: coder, code: code, message: "JPEG XL: \(message)")
        }
        let format = image.pixelFormat
        guard image.isConsistent, format.bitsPerComponent == 8 || format.bitsPerComponent == 16,
            image.width <= 1 << 30, image.height <= 1 << 30
        else { throw fail("cannot encode a \(image.width)x\(image.height) \(format) image", .invalidArgument) }
        let frames = image.allFrames
        guard frames.allSatisfy({ $0.image.width == image.width && $0.image.height == image.height && $0.image.pixelFormat == format })
        else { throw fail("every frame must have the first frame's size and pixel format", .invalidArgument) }

        guard let encoder = JxlEncoderCreate(nil) else { throw fail("JxlEncoderCreate failed") }
        defer { JxlEncoderDestroy(encoder) }
        let runner = threads > 0 ? JxlThreadParallelRunnerCreate(nil, threads) : nil
        defer { if let runner { JxlThreadParallelRunnerDestroy(runner) } }
        if let runner { _ = JxlEncoderSetParallelRunner(encoder, JxlThreadParallelRunner, runner) }

        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(image.width)
        info.ysize = UInt32(image.height)
        info.bits_per_sample = UInt32(format.bitsPerComponent)
        info.num_color_channels = format.layout == .gray || format.layout == .grayAlpha ? 1 : 3
        info.num_extra_channels = format.hasAlpha ? 1 : 0
        info.alpha_bits = format.hasAlpha ? info.bits_per_sample : 0
        info.alpha_premultiplied = format.isPremultiplied ? 1 : 0
        info.uses_original_profile = options.lossless ? 1 : 0
        if image.isAnimated {
            info.have_animation = 1
            info.animation.tps_numerator = 1000
            info.animation.tps_denominator = 1
            info.animation.num_loops = UInt32(clamping: image.loopCount ?? 0)
        }
        guard JxlEncoderSetBasicInfo(encoder, &info) == JXL_ENC_SUCCESS else { throw fail("the encoder refused the basic info") }
        try setColour(encoder, image: image, gray: info.num_color_channels == 1, fail: fail)

        guard let settings = JxlEncoderFrameSettingsCreate(encoder, nil) else { throw fail("no frame settings") }
        let level = Int64(min(9, max(1, effort ?? options.compressionLevel)))
        _ = JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, level)
        if options.progressive {
            // The DC first (a 1:8 image), then AC in passes: what a streaming decode previews.
            _ = JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_PROGRESSIVE_DC, 1)
            _ = JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_PROGRESSIVE_AC, 1)
        }
        if options.lossless {
            guard JxlEncoderSetFrameLossless(settings, 1) == JXL_ENC_SUCCESS else { throw fail("lossless refused") }
        } else {
            guard JxlEncoderSetFrameDistance(settings, distance(quality: options.quality)) == JXL_ENC_SUCCESS else { throw fail("distance refused") }
        }
        var pixelFormat = JxlPixelFormat(
            num_channels: UInt32(format.channelCount), data_type: format.bitsPerComponent == 16 ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8,
            endianness: JXL_NATIVE_ENDIAN, align: 0)
        for frame in frames {
            if image.isAnimated {
                var header = JxlFrameHeader()
                JxlEncoderInitFrameHeader(&header)
                header.duration = UInt32(clamping: Int((frame.duration * 1000).rounded()))
                guard JxlEncoderSetFrameHeader(settings, &header) == JXL_ENC_SUCCESS else { throw fail("frame header refused") }
            }
            let pixels = tightPixels(frame.image)
            let added = pixels.withUnsafeBytes { JxlEncoderAddImageFrame(settings, &pixelFormat, $0.baseAddress, $0.count) }
            guard added == JXL_ENC_SUCCESS else { throw fail("the encoder refused a frame (error \(JxlEncoderGetError(encoder).rawValue))") }
        }
        JxlEncoderCloseInput(encoder)
        return try output(encoder, fail: fail)
    }

    /// cjxl's mapping of a 0…100 quality to a butteraugli distance, for the kernel's 0…1 quality:
    /// 1 → 0.1 (visually lossless), 0.9 → 1.0 (libjxl's default), 0.3 and below → 6.4 and more.
    static func distance(quality: Double) -> Float {
        let q = min(100, max(0, quality * 100))
        let distance = q >= 30 ? 0.1 + (100 - q) * 0.09 : 6.4 + pow(2.5, (30 - q) / 5) / 6.25
        return Float(min(25, distance))
    }

    private static func setColour(
        _ encoder: OpaquePointer, image: Image, gray: Bool, fail: (String, ImageKernelError.Code) -> ImageKernelError
    ) throws(ImageKernelError) {
        if let icc = image.iccProfile, !icc.isEmpty {
            let set = icc.withUnsafeBufferPointer { JxlEncoderSetICCProfile(encoder, $0.baseAddress, $0.count) }
            if set == JXL_ENC_SUCCESS { return }
        }
        var encoding = image.cicp.flatMap { JXLColor.encoding($0, gray: gray) } ?? JxlColorEncoding()
        if image.cicp.flatMap({ JXLColor.encoding($0, gray: gray) }) == nil { JxlColorEncodingSetToSRGB(&encoding, gray ? 1 : 0) }
        guard JxlEncoderSetColorEncoding(encoder, &encoding) == JXL_ENC_SUCCESS else { throw fail("colour encoding refused", .internalError) }
    }

    /// The rows without padding, as libjxl reads them.
    private static func tightPixels(_ image: Image) -> [UInt8] {
        let rowBytes = image.width * image.pixelFormat.bytesPerPixel
        if image.bytesPerRow == rowBytes && image.pixels.count == rowBytes * image.height { return image.pixels }
        var out: [UInt8] = []
        out.reserveCapacity(rowBytes * image.height)
        for y in 0..<image.height { out += image.pixels[(y * image.bytesPerRow)..<(y * image.bytesPerRow + rowBytes)] }
        return out
    }

    private static func output(_ encoder: OpaquePointer, fail: (String, ImageKernelError.Code) -> ImageKernelError) throws(ImageKernelError) -> Data {
        var out = Data(count: 64 << 10)
        var written = 0
        while true {
            var status = JXL_ENC_ERROR
            out.withUnsafeMutableBytes { raw in
                var next: UnsafeMutablePointer<UInt8>? = raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + written
                var available = raw.count - written
                status = JxlEncoderProcessOutput(encoder, &next, &available)
                written = raw.count - available
            }
            switch status {
            case JXL_ENC_SUCCESS:
                out.count = written
                return out
            case JXL_ENC_NEED_MORE_OUTPUT:
                out.count *= 2
            default:
                throw fail("encoding failed (error \(JxlEncoderGetError(encoder).rawValue))", .internalError)
            }
        }
    }
}
