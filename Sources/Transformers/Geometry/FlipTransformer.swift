import ImageKernel

/// Mirrors the image left-right (`horizontal`) or top-bottom (`vertical`), exactly.
public struct FlipTransformer: ImageTransformer {
    /// The axis a flip reverses.
    public enum Axis: String, Sendable, Hashable, CaseIterable {
        /// Left and right swap (`flip:h`).
        case horizontal = "h"
        /// Top and bottom swap (`flip:v`).
        case vertical = "v"
    }

    public let axis: Axis

    public init(_ axis: Axis) { self.axis = axis }

    /// `flip:h` or `flip:v`.
    public var key: String { "flip:\(axis.rawValue)" }

    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        try image.checkedForTransform(by: key)
        return try image.remapped(.upright(axis == .horizontal ? .upMirrored : .downMirrored, width: image.width, height: image.height))
    }
}
