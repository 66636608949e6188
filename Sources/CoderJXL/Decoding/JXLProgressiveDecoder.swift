import CJXL
import Foundation
import ImageKernel

/// Decodes one JPEG XL from chunks with libjxl's streaming input: the bytes libjxl has not used
/// yet are kept and handed back with the next chunk. A still image gives a preview at each
/// progression step libjxl reports (`JXL_DEC_FRAME_PROGRESSION`: the DC image, then passes) and,
/// when 64 KiB more arrived without one, what `JxlDecoderFlushImage` renders of the groups
/// decoded so far; the final image when its last frame is complete. Animations give their
/// frames whole at the end, checked against the frame budgets as each frame starts.
final class JXLProgressiveDecoder: ProgressiveImageDecoder {
    /// Bytes that arrive between two flushes of partial input.
    static let flushInterval = 64 << 10

    private let options: DecodeOptions
    private let coder: String
    private let session: JXLSession?
    private var failure: ImageKernelError?
    private var finished = false
    /// Bytes libjxl has not consumed yet, kept across calls.
    private var unused: [UInt8] = []
    private var plan: JXLPlan?
    private var colour: (icc: [UInt8]?, cicp: CICP?) = (nil, nil)
    private var duration = 0.0
    private var isLastFrame = false
    private var frames: [ImageFrame] = []
    /// The frame being rendered, when libjxl has a buffer for it.
    private var output: UnsafeMutableRawBufferPointer?
    private var bytesSinceFlush = 0
    /// Whether the leading bytes were seen to be a signature (libjxl then consumes them).
    private var signatureSeen = false

    init(options: DecodeOptions, threads: Int, coder: String) {
        self.options = options
        self.coder = coder
        do {
            let session = try JXLSession(threads: threads, coder: coder)
            let decoder = session.decoder
            _ = JxlDecoderSetKeepOrientation(decoder, 1)
            _ = JxlDecoderSetUnpremultiplyAlpha(decoder, 1)
            _ = JxlDecoderSetProgressiveDetail(decoder, kPasses)
            let events = JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_FRAME.rawValue
                | JXL_DEC_FULL_IMAGE.rawValue | JXL_DEC_FRAME_PROGRESSION.rawValue
            if JxlDecoderSubscribeEvents(decoder, Int32(events)) != JXL_DEC_SUCCESS { failure = session.failure("setup", coder: coder) }
            self.session = session
        } catch {
            session = nil
            failure = error
        }
    }

    deinit {
        output?.deallocate()
    }

    func append(_ chunk: Data) throws(ImageKernelError) -> Image? {
        if let failure { throw failure }
        guard !finished, let session else { return nil }
        do {
            return try feed(chunk, session)
        } catch {
            failure = error
            finished = true
            throw error
        }
    }

    private func feed(_ chunk: Data, _ session: JXLSession) throws(ImageKernelError) -> Image? {
        unused.append(contentsOf: chunk)
        bytesSinceFlush += chunk.count
        if !signatureSeen {
            if ImageFormat.sniff(unused) == .jxl {
                signatureSeen = true
            } else if unused.count >= 12 || !Self.couldBeSignature(unused) {
                throw ImageKernelError(stage: .decode, plugin: coder, code: .corruptData, message: "JPEG XL: no JPEG XL signature")
            } else {
                return nil
            }
        }
        let input = unused
        let result = input.withUnsafeBufferPointer { bytes in
            Result { () throws(ImageKernelError) -> (Image?, Int) in
                guard JxlDecoderSetInput(session.decoder, bytes.baseAddress, bytes.count) == JXL_DEC_SUCCESS else {
                    throw session.failure("input", coder: coder)
                }
                let image = try run(session)
                return (image, JxlDecoderReleaseInput(session.decoder))
            }
        }
        let (image, remaining) = try result.get()
        unused = Array(input.suffix(remaining))
        return image
    }

    /// A prefix of one of the two signatures, too short to tell.
    private static func couldBeSignature(_ bytes: [UInt8]) -> Bool {
        let signatures: [[UInt8]] = [[0xFF, 0x0A], [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]]
        return signatures.contains { bytes.count < $0.count && Array($0.prefix(bytes.count)) == bytes }
    }

    /// Runs libjxl over the input it has; returns a preview or the final image, or nil.
    private func run(_ session: JXLSession) throws(ImageKernelError) -> Image? {
        let decoder = session.decoder
        var preview: Image?
        while true {
            let status = JxlDecoderProcessInput(decoder)
            switch status {
            case JXL_DEC_BASIC_INFO:
                var info = JxlBasicInfo()
                guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else { throw session.failure("basic info", coder: coder) }
                let made = try JXLPlan(info, options: options, coder: coder)
                session.allow(canvas: made.canvas)
                plan = made
            case JXL_DEC_COLOR_ENCODING:
                colour = JXLColor.read(decoder)
            case JXL_DEC_FRAME:
                guard let plan else { throw session.failure("frame before header", coder: coder) }
                var header = JxlFrameHeader()
                guard JxlDecoderGetFrameHeader(decoder, &header) == JXL_DEC_SUCCESS else { throw session.failure("frame header", coder: coder) }
                duration = plan.seconds(ticks: header.duration)
                isLastFrame = header.is_last != 0 || !plan.isAnimated || options.firstFrameOnly
                if plan.isAnimated && !options.firstFrameOnly {
                    try options.checkAnimationBudget(frameCount: frames.count + 1, canvas: plan.canvas, plugin: coder)
                    // `keepFirst`: the frame that reaches `maxFrameCount` is the last one decoded.
                    if options.framesOverLimit == .keepFirst && frames.count + 1 >= options.maxFrameCount { isLastFrame = true }
                }
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                guard let plan else { throw session.failure("frame before header", coder: coder) }
                var format = plan.jxlFormat
                let count = plan.canvas.width * plan.canvas.height * plan.pixelFormat.bytesPerPixel
                let buffer = output ?? UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
                output = buffer
                guard JxlDecoderSetImageOutBuffer(decoder, &format, buffer.baseAddress, count) == JXL_DEC_SUCCESS else {
                    throw session.failure("output buffer", coder: coder)
                }
            case JXL_DEC_FRAME_PROGRESSION:
                if let plan, !plan.isAnimated, JxlDecoderFlushImage(decoder) == JXL_DEC_SUCCESS {
                    preview = try image(plan, isPreview: true)
                    bytesSinceFlush = 0
                }
            case JXL_DEC_FULL_IMAGE:
                guard let plan else { throw session.failure("image before header", coder: coder) }
                frames.append(ImageFrame(image: try image(plan, isPreview: false), duration: duration))
                if isLastFrame {
                    finished = true
                    return plan.isAnimated && !options.firstFrameOnly ? try Image(animating: frames, loopCount: plan.loopCount) : frames[0].image
                }
            case JXL_DEC_SUCCESS:
                guard let plan, !frames.isEmpty else { throw session.failure("image", coder: coder) }
                finished = true
                return plan.isAnimated ? try Image(animating: frames, loopCount: plan.loopCount) : frames[0].image
            case JXL_DEC_NEED_MORE_INPUT:
                if preview == nil, let plan, !plan.isAnimated, output != nil, bytesSinceFlush >= Self.flushInterval,
                    JxlDecoderFlushImage(decoder) == JXL_DEC_SUCCESS
                {
                    preview = try image(plan, isPreview: true)
                    bytesSinceFlush = 0
                }
                return preview
            case JXL_DEC_ERROR:
                throw session.failure(plan == nil ? "header" : "image", coder: coder)
            default:
                throw ImageKernelError(
                    stage: .decode, plugin: coder, code: .internalError, message: "JPEG XL: unexpected decoder status \(status.rawValue)")
            }
        }
    }

    /// The output buffer as an image (a thumbnail when one is asked for).
    private func image(_ plan: JXLPlan, isPreview: Bool) throws(ImageKernelError) -> Image {
        guard let output else { throw ImageKernelError(stage: .decode, plugin: coder, code: .internalError, message: "JPEG XL: no output buffer") }
        var image = try Image(
            width: plan.canvas.width, height: plan.canvas.height, pixelFormat: plan.pixelFormat, pixels: Array(output),
            orientation: plan.orientation, iccProfile: colour.icc, sourceFormat: .jxl, scale: options.scale, isPreview: isPreview,
            cicp: colour.cicp)
        if plan.isReduced {
            image = try image.areaDownscaled(to: plan.target)
            image.decoderNotes[Image.MetadataKey.thumbnailSource] = "downscaled"
        }
        return image
    }
}
