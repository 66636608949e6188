import CRSVG
import ImageKernel

/// Turns what librsvg, the budget scan or the limits said into the kernel's error.
enum SVGFailure {
    static func librsvg(_ error: crsvg_error, what: String, coder: String) -> ImageKernelError {
        let message = text(error.message)
        let lowered = message.lowercased()
        let code: ImageKernelError.Code
        if lowered.contains("entity reference loop") || lowered.contains("amplification") || lowered.contains("excessive depth")
            || lowered.contains("exceeded more than")
        {
            code = .tooLarge
        } else if lowered.contains("premature end") || lowered.contains("end of data") {
            code = .truncated
        } else {
            code = .corruptData
        }
        let detail = message.isEmpty ? "librsvg failed without a message" : "librsvg: \(message)"
        return ImageKernelError(stage: .decode, plugin: coder, code: code, message: "SVG \(what): \(detail)")
    }

    static func scan(_ failure: SVGScan.Failure, coder: String) -> ImageKernelError {
        switch failure {
        case .unsupported(let what): return ImageKernelError(stage: .decode, plugin: coder, code: .unsupported, message: "SVG: \(what)")
        case .tooLarge(let what): return ImageKernelError(stage: .decode, plugin: coder, code: .tooLarge, message: "SVG: \(what)")
        }
    }

    static func estimate(_ failure: SVGWorkEstimate.Failure, coder: String) -> ImageKernelError {
        switch failure {
        case .unsupported(let what): return ImageKernelError(stage: .decode, plugin: coder, code: .unsupported, message: "SVG: \(what)")
        }
    }

    static func corrupt(_ message: String, coder: String) -> ImageKernelError {
        ImageKernelError(stage: .decode, plugin: coder, code: .corruptData, message: "SVG: \(message)")
    }

    static func pixelLimit(_ message: String, coder: String) -> ImageKernelError {
        ImageKernelError(stage: .decode, plugin: coder, code: .pixelLimitExceeded, message: "SVG: \(message)")
    }

    /// A fixed-size C string field as a Swift string.
    static func text<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
