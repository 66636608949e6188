import CGIF
import ImageKernel

/// Turns giflib's error codes and the scanner's findings into the kernel's error.
enum GIFFailure {
    static func giflib(_ code: Int32, stage: ImageKernelError.Stage, coder: String, what: String) -> ImageKernelError {
        let kind: ImageKernelError.Code
        switch code {
        case D_GIF_ERR_READ_FAILED, D_GIF_ERR_EOF_TOO_SOON: kind = .truncated
        case D_GIF_ERR_NOT_ENOUGH_MEM, E_GIF_ERR_NOT_ENOUGH_MEM: kind = .internalError
        default: kind = stage == .decode ? .corruptData : .internalError
        }
        return ImageKernelError(stage: stage, plugin: coder, code: kind, message: "giflib: \(what): \(String(cString: cgif_error_string(code)))")
    }

    static func corrupt(_ message: String, coder: String) -> ImageKernelError {
        ImageKernelError(stage: .decode, plugin: coder, code: .corruptData, message: "GIF: \(message)")
    }

    static func truncated(_ message: String, coder: String) -> ImageKernelError {
        ImageKernelError(stage: .decode, plugin: coder, code: .truncated, message: "GIF: \(message)")
    }

    static func pixelLimit(_ what: String, _ size: PixelSize, limit: Int, coder: String) -> ImageKernelError {
        ImageKernelError(
            stage: .decode, plugin: coder, code: .pixelLimitExceeded,
            message: "GIF \(what) is \(size) (\(size.width * size.height) pixels), over the pixel limit of \(limit)")
    }
}
