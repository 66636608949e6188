import ImageKernel

/// Cuts out a rectangle, exactly (no resampling).
///
/// Either an explicit rectangle, which must lie inside the image, or a size placed by a
/// ``Gravity`` or a ``CropPlacement`` (smart or a focus point); a size larger than the image is
/// clamped to it. Pixel format and metadata are kept.
public struct CropTransformer: ImageTransformer {
    /// What to cut out.
    public enum Region: Sendable, Hashable {
        /// The rectangle at `x, y` of `width`×`height`.
        case rect(x: Int, y: Int, width: Int, height: Int)
        /// `width`×`height` placed by `gravity`.
        case size(width: Int, height: Int, gravity: Gravity)
        /// `width`×`height` placed by `placement` (``CropPlacement/smart`` or a focus point; a
        /// gravity gives the same crop as ``size(width:height:gravity:)``).
        case placed(width: Int, height: Int, placement: CropPlacement)
    }

    public let region: Region

    public init(_ region: Region) { self.region = region }

    /// The requested size of a crop placed by gravity, smart or a focus point (nil for a rectangle).
    var size: (width: Int, height: Int)? {
        switch region {
        case .rect: nil
        case let .size(w, h, _), let .placed(w, h, _): (w, h)
        }
    }

    /// `crop:W:H:PLACEMENT` (a gravity, `smart` or `fp:X:Y`) or `crop:X:Y:W:H`.
    public var key: String {
        switch region {
        case let .rect(x, y, w, h): "crop:\(x):\(y):\(w):\(h)"
        case let .size(w, h, gravity): "crop:\(w):\(h):\(gravity.rawValue)"
        case let .placed(w, h, placement): "crop:\(w):\(h):\(placement.key)"
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
            return try crop(image, width: w, height: h, placement: .gravity(gravity))
        case let .placed(w, h, placement):
            return try crop(image, width: w, height: h, placement: placement)
        }
    }

    private func crop(_ image: Image, width w: Int, height h: Int, placement: CropPlacement) throws(ImageKernelError) -> Image {
        guard w > 0, h > 0 else {
            throw ImageKernelError(stage: .transform, plugin: key, code: .invalidArgument, message: "a crop of \(w)x\(h) is empty")
        }
        let width = min(w, image.width), height = min(h, image.height)
        if width == image.width && height == image.height { return try image.remapped(.crop(x: 0, y: 0, width: width, height: height)) }
        let origin = try placement.cropOrigin(width: width, height: height, in: image)
        return try image.remapped(.crop(x: origin.x, y: origin.y, width: width, height: height))
    }
}
