import ImageKernel

/// The largest images transformers make, so a hostile size is a typed error, not an allocation
/// that kills the process.
public enum TransformLimits {
    /// Most pixels any output or intermediate may have (2^28, e.g. 16384 × 16384).
    public static let maxPixels = 1 << 28
    /// Longest side any output may have.
    public static let maxSide = 1 << 16

    static func check(width: Int, height: Int, what: String) throws(ImageKernelError) {
        guard width > 0, height > 0 else {
            throw ImageKernelError(stage: .transform, code: .invalidArgument, message: "the \(what) would be \(width)x\(height); sides must be positive")
        }
        guard width <= maxSide, height <= maxSide, width.multipliedReportingOverflow(by: height).partialValue <= maxPixels else {
            throw ImageKernelError(
                stage: .transform, code: .tooLarge,
                message: "the \(what) would be \(width)x\(height), more than the limit of \(maxSide) per side and \(maxPixels) pixels")
        }
    }
}
