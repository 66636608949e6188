import ImageKernel

/// Cuts out a rectangle, exactly (no resampling).
///
/// Either an explicit rectangle, which must lie inside the image, or a size placed by a
/// ``Gravity``; a size larger than the image is clamped to it. Pixel format and metadata are kept.
public struct CropTransformer: ImageTransformer {
    /// What to cut out.
    public enum Region: Sendable, Hashable {
        /// The rectangle at `x, y` of `width`×`height`.
        case rect(x: Int, y: Int, width: Int, height: Int)
        /// `width`×`height` placed by `gravity`.
        case size(width: Int, height: Int, gravity: Gravity)
    }

    public let region: Region

    public init(_ region: Region) { self.region = region }

    /// `crop:W:H:gravity` or `crop:X:Y:W:H`.
    public var key: String {
        switch region {
        case let .rect(x, y, w, h): "crop:\(x):\(y):\(w):\(h)"
        case let .size(w, h, gravity): "crop:\(w):\(h):\(gravity.rawValue)"
        }
    }

    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        try image.checkedForTransform(by: key)
        switch region {
        case let .rect(x, y, w, h):
            guard x >= 0, y >= 0, w > 0, h > 0, x + w <= image.width, y + h <= image.height else {
                throw ImageKernelError(
                    stage: .transform, plugin: key, code: .invalidArgument,
                    message: "the rectangle \(w)x\(h) at \(x),\(y) is not inside the \(image.width)x\(image.height) image")
            }
            return try image.remapped(.crop(x: x, y: y, width: w, height: h))
        case let .size(w, h, gravity):
            guard w > 0, h > 0 else {
                throw ImageKernelError(stage: .transform, plugin: key, code: .invalidArgument, message: "a crop of \(w)x\(h) is empty")
            }
            let width = min(w, image.width), height = min(h, image.height)
            return try image.remapped(.crop(
                x: gravity.offset(kept: width, total: image.width, vertical: false),
                y: gravity.offset(kept: height, total: image.height, vertical: true), width: width, height: height))
        }
    }
}
