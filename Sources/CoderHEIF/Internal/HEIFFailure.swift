import CLibHEIF
import ImageKernel

/// Turns libheif's error values into the kernel's error.
enum HEIFFailure {
    /// libheif's `heif_suberror_Security_limit_exceeded`: a declared size over the context's limit.
    static let securityLimitSubcode: UInt32 = 1000
    /// libheif's `heif_suberror_End_of_data`.
    static let endOfDataSubcode: UInt32 = 100

    /// Throws when `status` is not `heif_error_Ok`.
    static func check(_ status: heif_error, stage: ImageKernelError.Stage, coder: String, doing what: String) throws(ImageKernelError) {
        guard status.code != heif_error_Ok else { return }
        throw error(status, stage: stage, coder: coder, doing: what)
    }

    static func error(_ status: heif_error, stage: ImageKernelError.Stage, coder: String, doing what: String) -> ImageKernelError {
        let message = status.message.map { String(cString: $0) } ?? "unknown error"
        let subcode = status.subcode.rawValue
        let code: ImageKernelError.Code
        if subcode == securityLimitSubcode {
            code = .pixelLimitExceeded
        } else if subcode == endOfDataSubcode || message.localizedCaseInsensitiveContains("end of file")
            || message.localizedCaseInsensitiveContains("end of data")
        {
            code = .truncated
        } else {
            switch status.code {
            case heif_error_Unsupported_feature, heif_error_Unsupported_filetype: code = .unsupported
            case heif_error_Usage_error: code = .invalidArgument
            case heif_error_Memory_allocation_error: code = .internalError
            case heif_error_Encoder_plugin_error, heif_error_Encoding_error:
                code = stage == .encode ? .internalError : .corruptData
            default: code = stage == .decode ? .corruptData : .internalError
            }
        }
        return ImageKernelError(
            stage: stage, plugin: coder, code: code,
            message: "libheif \(what): \(message) (\(status.code.rawValue).\(subcode))")
    }

    static func pixelLimit(_ what: String, width: Int, height: Int, limit: Int, coder: String) -> ImageKernelError {
        // Declared sides come from the file (32-bit each): their product may not fit in an Int.
        let (area, overflow) = width.multipliedReportingOverflow(by: height)
        return ImageKernelError(
            stage: .decode, plugin: coder, code: .pixelLimitExceeded,
            message: "the HEIF \(what) is \(width)x\(height) (\(overflow ? "more than \(Int.max)" : "\(area)") pixels), over the pixel limit of \(limit)")
    }
}
