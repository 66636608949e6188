import ImageKernel

/// Where a window smaller than the image goes: by a fixed ``Gravity``, over the most interesting
/// part of the image, or around a focus point. `crop:W:H` and `resize:fill` take one.
public enum CropPlacement: Sendable, Hashable {
    /// At a fixed centre, edge or corner.
    case gravity(Gravity)
    /// Over the part of the image that draws the eye (an attention measure on a small downscale:
    /// edges, saturated colour and skin tones; see the TransformSpec article). Spelled `smart`
    /// (also `sm`).
    case smart
    /// Centred on the point at fraction `x` of the width and `y` of the height (each 0…1), moved
    /// only as far as needed to stay inside the image. Spelled `fp:X:Y`.
    case focusPoint(x: Double, y: Double)

    /// Parses a gravity word or `smart`/`sm` (a focus point takes two more arguments: the spec
    /// parser reads those).
    public init?(name: String) {
        if let gravity = Gravity(name: name) {
            self = .gravity(gravity)
        } else if ["smart", "sm"].contains(name.lowercased()) {
            self = .smart
        } else {
            return nil
        }
    }

    /// The spelling in normalised keys: the gravity's name, `smart`, or `fp:X:Y`.
    public var key: String {
        switch self {
        case .gravity(let gravity): gravity.rawValue
        case .smart: "smart"
        case let .focusPoint(x, y): "fp:\(SpecNumber.format(x)):\(SpecNumber.format(y))"
        }
    }

    /// Whether the window depends on the pixels (only ``smart`` does).
    public var needsPixels: Bool { self == .smart }

    /// The top-left corner of a `width`×`height` window inside an `imageWidth`×`imageHeight`
    /// image, in (fractional) pixels; `attention` is asked only for ``smart``.
    func origin(
        width: Double, height: Double, imageWidth: Int, imageHeight: Int, attention: () throws(ImageKernelError) -> AttentionMap
    ) throws(ImageKernelError) -> (x: Double, y: Double) {
        let spareX = max(0, Double(imageWidth) - width), spareY = max(0, Double(imageHeight) - height)
        switch self {
        case .gravity(let gravity):
            return (spareX * gravity.anchor.x, spareY * gravity.anchor.y)
        case let .focusPoint(x, y):
            return (min(spareX, max(0, x * Double(imageWidth) - width / 2)), min(spareY, max(0, y * Double(imageHeight) - height / 2)))
        case .smart:
            guard spareX > 0 || spareY > 0 else { return (0, 0) }
            let best = try attention().bestOrigin(windowWidth: width, windowHeight: height)
            return (min(spareX, max(0, best.x)), min(spareY, max(0, best.y)))
        }
    }

    /// The top-left corner of the `width`×`height` window (each side clamped to the image) that
    /// a crop of `image` by this placement cuts out, in whole pixels (rounded down, as ``Gravity``
    /// places crops). ``CropTransformer`` crops there; this says where without copying pixels.
    public func cropOrigin(width: Int, height: Int, in image: Image) throws(ImageKernelError) -> (x: Int, y: Int) {
        let width = min(max(1, width), image.width), height = min(max(1, height), image.height)
        let origin = try origin(
            width: Double(width), height: Double(height), imageWidth: image.width, imageHeight: image.height,
            attention: { () throws(ImageKernelError) in try AttentionMap(image) })
        return (min(image.width - width, Int(origin.x.rounded(.down))), min(image.height - height, Int(origin.y.rounded(.down))))
    }
}
