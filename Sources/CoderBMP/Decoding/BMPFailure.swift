import ImageKernel

/// The kernel errors CoderBMP throws, with the stage and plugin filled in.
enum BMPFailure {
    static let plugin = "CoderBMP"

    static func corrupt(_ message: String) -> ImageKernelError {
        ImageKernelError(stage: .decode, plugin: plugin, code: .corruptData, message: message)
    }

    static func truncated(_ message: String) -> ImageKernelError {
        ImageKernelError(stage: .decode, plugin: plugin, code: .truncated, message: message)
    }

    static func unsupported(_ message: String, stage: ImageKernelError.Stage = .decode) -> ImageKernelError {
        ImageKernelError(stage: stage, plugin: plugin, code: .unsupported, message: message)
    }

    static func pixelLimit(_ what: String, width: Int, height: Int, limit: Int) -> ImageKernelError {
        let pixels = width.multipliedReportingOverflow(by: height)
        return ImageKernelError(
            stage: .decode, plugin: plugin, code: .pixelLimitExceeded,
            message: "\(what) is \(width)x\(height) (\(pixels.overflow ? "more than Int.max" : "\(pixels.partialValue)") pixels), over the pixel limit of \(limit)")
    }

    /// Throws `pixelLimitExceeded` unless `width × height` fits `limit`; sizes come from headers.
    static func checkPixels(_ what: String, width: Int, height: Int, limit: Int) throws(ImageKernelError) {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > limit { throw pixelLimit(what, width: width, height: height, limit: limit) }
    }
}
