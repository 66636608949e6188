import CTIFF
import ImageKernel

/// Turns what libtiff said into the kernel's error.
enum TIFFFailure {
    /// The last error libtiff reported to the call's handler, classified by its wording.
    static func libtiff(_ messages: ctiff_messages, what: String, stage: ImageKernelError.Stage = .decode, coder: String) -> ImageKernelError {
        let message = text(messages.error)
        let lowered = message.lowercased()
        let code: ImageKernelError.Code
        if stage == .encode {
            code = .internalError
        } else if lowered.contains("read error") || lowered.contains("cannot read") || lowered.contains("unexpected end")
            || lowered.contains("premature") || lowered.contains("not enough data") || lowered.contains("end of data")
        {
            code = .truncated
        } else if lowered.hasPrefix("sorry") || lowered.contains("not supported") || lowered.contains("can not handle")
            || lowered.contains("unsupported") || lowered.contains("not configured")
        {
            code = .unsupported
        } else {
            code = .corruptData
        }
        let detail = message.isEmpty ? "libtiff failed without a message" : "libtiff: \(message)"
        return ImageKernelError(stage: stage, plugin: coder, code: code, message: "TIFF \(what): \(detail)")
    }

    static func pixelLimit(_ what: String, _ size: PixelSize, limit: Int, coder: String) -> ImageKernelError {
        ImageKernelError(
            stage: .decode, plugin: coder, code: .pixelLimitExceeded,
            message: "TIFF \(what) is \(size) (\(size.width * size.height) pixels), over the pixel limit of \(limit)")
    }

    static func unsupported(_ message: String, coder: String) -> ImageKernelError {
        ImageKernelError(stage: .decode, plugin: coder, code: .unsupported, message: "TIFF: \(message)")
    }

    /// A fixed-size C string field as a Swift string.
    static func text<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
