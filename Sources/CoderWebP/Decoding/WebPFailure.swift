import CWebP
import ImageKernel

/// Turns libwebp's status values into the kernel's error.
enum WebPFailure {
    static func decode(_ status: VP8StatusCode, coder: String, what: String = "decode") -> ImageKernelError {
        let code: ImageKernelError.Code
        let reason: String
        switch status {
        case VP8_STATUS_NOT_ENOUGH_DATA: (code, reason) = (.truncated, "not enough data")
        case VP8_STATUS_UNSUPPORTED_FEATURE: (code, reason) = (.unsupported, "unsupported feature")
        case VP8_STATUS_OUT_OF_MEMORY: (code, reason) = (.internalError, "out of memory")
        case VP8_STATUS_INVALID_PARAM: (code, reason) = (.invalidArgument, "invalid parameter")
        default: (code, reason) = (.corruptData, "bitstream error")
        }
        return ImageKernelError(stage: .decode, plugin: coder, code: code, message: "libwebp: \(what) failed: \(reason)")
    }

    static func corrupt(_ message: String, coder: String) -> ImageKernelError {
        ImageKernelError(stage: .decode, plugin: coder, code: .corruptData, message: "libwebp: \(message)")
    }

    static func pixelLimit(_ size: PixelSize, limit: Int, coder: String) -> ImageKernelError {
        ImageKernelError(
            stage: .decode, plugin: coder, code: .pixelLimitExceeded,
            message: "the WebP is \(size) (\(size.width * size.height) pixels), over the pixel limit of \(limit)")
    }

    static func encode(_ message: String, coder: String, code: ImageKernelError.Code = .internalError) -> ImageKernelError {
        ImageKernelError(stage: .encode, plugin: coder, code: code, message: "libwebp: \(message)")
    }
}
