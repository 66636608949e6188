import CPNG
import ImageKernel

/// Turns a failed `cpng_status` and its message into the kernel's error.
enum PNGFailure {
    static func error(_ status: cpng_status, message: String, stage: ImageKernelError.Stage, coder: String) -> ImageKernelError {
        let code: ImageKernelError.Code
        switch status {
        case CPNG_ERR_TRUNCATED: code = .truncated
        case CPNG_ERR_LIMIT: code = .pixelLimitExceeded
        case CPNG_ERR_ARGUMENT: code = .invalidArgument
        case CPNG_ERR_NOMEM: code = .internalError
        default: code = stage == .decode ? .corruptData : .internalError
        }
        return ImageKernelError(stage: stage, plugin: coder, code: code, message: "libpng: \(message)")
    }

    static func outOfMemory(stage: ImageKernelError.Stage, coder: String) -> ImageKernelError {
        ImageKernelError(stage: stage, plugin: coder, code: .internalError, message: "libpng: out of memory creating the codec")
    }

    static func pixelLimit(width: Int, height: Int, limit: Int, coder: String) -> ImageKernelError {
        ImageKernelError(
            stage: .decode, plugin: coder, code: .pixelLimitExceeded,
            message: "the PNG is \(width)x\(height) (\(width * height) pixels), over the pixel limit of \(limit)")
    }
}

extension PixelFormat {
    /// The kernel format of libpng's output after CPNG's transforms.
    init?(pngHeader header: cpng_header) {
        let layout: Layout
        switch header.channels {
        case 1: layout = .gray
        case 2: layout = .grayAlpha
        case 3: layout = .rgb
        case 4: layout = .rgba
        default: return nil
        }
        guard header.bit_depth == 8 || header.bit_depth == 16 else { return nil }
        self.init(layout: layout, bitsPerComponent: Int(header.bit_depth))
    }
}
