import CJXL
import Foundation
import ImageKernel

/// Decodes a JPEG XL codestream or container with libjxl's decoder: the basic info is read and
/// checked (``JXLPlan``) before libjxl allocates any frame; animations are counted first
/// (``JXLFrameCount``) and checked against the frame budgets; then every displayed frame
/// (coalesced: blended and disposed by libjxl) is rendered into its buffer, then reduced to the
/// thumbnail by the kernel's area average when one is asked for.
enum JXLDecoding {
    static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions, threads: Int, coder: String) throws(ImageKernelError) -> Image {
        guard ImageFormat.sniff(bytes) == .jxl, let base = bytes.baseAddress else {
            throw ImageKernelError(
                stage: .decode, plugin: coder, code: bytes.count < 12 ? .truncated : .corruptData, message: "JPEG XL: no JPEG XL signature")
        }
        let session = try JXLSession(threads: threads, coder: coder)
        let decoder = session.decoder
        _ = JxlDecoderSetKeepOrientation(decoder, 1)
        _ = JxlDecoderSetUnpremultiplyAlpha(decoder, 1)
        let events = JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_FRAME.rawValue | JXL_DEC_FULL_IMAGE.rawValue
        guard JxlDecoderSubscribeEvents(decoder, Int32(events)) == JXL_DEC_SUCCESS,
            JxlDecoderSetInput(decoder, base.assumingMemoryBound(to: UInt8.self), bytes.count) == JXL_DEC_SUCCESS
        else { throw session.failure("setup", coder: coder) }
        JxlDecoderCloseInput(decoder)

        var plan: JXLPlan?
        var colour: (icc: [UInt8]?, cicp: CICP?) = (nil, nil)
        var frames: [ImageFrame] = []
        var duration = 0.0
        var kept = Int.max  // the frames decoded: fewer than the animation's with `keepFirst`
        while true {
            let status = JxlDecoderProcessInput(decoder)
            switch status {
            case JXL_DEC_BASIC_INFO:
                var info = JxlBasicInfo()
                guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else { throw session.failure("basic info", coder: coder) }
                let made = try JXLPlan(info, options: options, coder: coder)
                if made.isAnimated && !options.firstFrameOnly {
                    let count = try JXLFrameCount.count(bytes, limit: options.maxFrameCount, coder: coder)
                    kept = try options.checkAnimationBudget(frameCount: count, canvas: made.canvas, plugin: coder)
                }
                session.allow(canvas: made.canvas)
                plan = made
            case JXL_DEC_COLOR_ENCODING:
                colour = JXLColor.read(decoder)
            case JXL_DEC_FRAME:
                var header = JxlFrameHeader()
                guard JxlDecoderGetFrameHeader(decoder, &header) == JXL_DEC_SUCCESS else { throw session.failure("frame header", coder: coder) }
                duration = plan?.seconds(ticks: header.duration) ?? 0
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                guard let plan else { throw session.failure("frame before header", coder: coder) }
                let pixels = try render(session, plan: plan, coder: coder)
                var image = try Image(
                    width: plan.canvas.width, height: plan.canvas.height, pixelFormat: plan.pixelFormat, pixels: pixels,
                    orientation: plan.orientation, iccProfile: colour.icc, sourceFormat: .jxl, scale: options.scale, cicp: colour.cicp)
                if plan.isReduced {
                    image = try image.areaDownscaled(to: plan.target)
                    image.decoderNotes[Image.MetadataKey.thumbnailSource] = "downscaled"
                }
                frames.append(ImageFrame(image: image, duration: duration))
                if !plan.isAnimated || options.firstFrameOnly || frames.count >= kept { return try finish(frames, plan: plan) }
            case JXL_DEC_SUCCESS:
                guard let plan, !frames.isEmpty else { throw session.failure("image", coder: coder) }
                return try finish(frames, plan: plan)
            case JXL_DEC_NEED_MORE_INPUT:
                throw ImageKernelError(
                    stage: .decode, plugin: coder, code: .truncated,
                    message: "JPEG XL: the data ends before the \(plan == nil ? "header" : "image") does")
            case JXL_DEC_ERROR:
                throw session.failure(plan == nil ? "header" : "image", coder: coder)
            default:
                throw ImageKernelError(
                    stage: .decode, plugin: coder, code: .internalError, message: "JPEG XL: unexpected decoder status \(status.rawValue)")
            }
        }
    }

    /// Renders the current frame into a full-size buffer (libjxl 0.7 has no reduced decode; its
    /// image-out callbacks hold a full float frame, more than the buffer: 178 MB against 71 MB
    /// for 12 MP), running libjxl until the frame is complete.
    private static func render(_ session: JXLSession, plan: JXLPlan, coder: String) throws(ImageKernelError) -> [UInt8] {
        let decoder = session.decoder
        var format = plan.jxlFormat
        let count = plan.canvas.width * plan.canvas.height * plan.pixelFormat.bytesPerPixel
        var failure: ImageKernelError?
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            var needed = 0
            guard JxlDecoderImageOutBufferSize(decoder, &format, &needed) == JXL_DEC_SUCCESS, needed == count,
                JxlDecoderSetImageOutBuffer(decoder, &format, buffer.baseAddress, count) == JXL_DEC_SUCCESS
            else {
                failure = session.failure("output buffer", coder: coder)
                return
            }
            let status = JxlDecoderProcessInput(decoder)
            guard status == JXL_DEC_FULL_IMAGE else {
                failure =
                    status == JXL_DEC_NEED_MORE_INPUT
                    ? ImageKernelError(stage: .decode, plugin: coder, code: .truncated, message: "JPEG XL: the data ends inside a frame")
                    : session.failure("frame", coder: coder)
                return
            }
            initialized = count
        }
        if let failure { throw failure }
        return pixels
    }

    private static func finish(_ frames: [ImageFrame], plan: JXLPlan) throws(ImageKernelError) -> Image {
        guard plan.isAnimated else { return frames[0].image }
        return try Image(animating: frames, loopCount: plan.loopCount)
    }
}
