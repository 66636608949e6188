import CJXL
import ImageKernel

/// Counts the displayed frames of an animation without rendering any: a decoder subscribed to
/// frame headers only skips every frame's pixel data. Stops once the count passes `limit`.
enum JXLFrameCount {
    static func count(_ bytes: UnsafeRawBufferPointer, limit: Int, coder: String) throws(ImageKernelError) -> Int {
        let session = try JXLSession(threads: 0, coder: coder)
        let decoder = session.decoder
        guard let base = bytes.baseAddress,
            JxlDecoderSubscribeEvents(decoder, Int32(JXL_DEC_FRAME.rawValue)) == JXL_DEC_SUCCESS,
            JxlDecoderSetInput(decoder, base.assumingMemoryBound(to: UInt8.self), bytes.count) == JXL_DEC_SUCCESS
        else { throw session.failure("frame count", coder: coder) }
        JxlDecoderCloseInput(decoder)
        var frames = 0
        while true {
            switch JxlDecoderProcessInput(decoder) {
            case JXL_DEC_FRAME:
                frames += 1
                if frames > limit { return frames }
            case JXL_DEC_SUCCESS:
                return frames
            case JXL_DEC_NEED_MORE_INPUT:
                throw ImageKernelError(stage: .decode, plugin: coder, code: .truncated, message: "JPEG XL: the animation ends inside a frame")
            default:
                throw session.failure("animation", coder: coder)
            }
        }
    }
}
