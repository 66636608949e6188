import ImageKernel

/// Makes the corners (or everything outside a centred circle) transparent with an anti-aliased
/// edge: a pixel's alpha is scaled by how much of it lies inside the shape. Pixels away from the
/// edge are untouched. An image without alpha gains an alpha channel.
public struct RoundCornersTransformer: ImageTransformer {
    /// The kept shape.
    public enum Shape: Sendable, Hashable {
        /// A rectangle with quarter-circle corners of this radius in pixels (at most half the shorter side).
        case corners(radius: Int)
        /// The circle centred in the image with the shorter side as its diameter.
        case circle
    }

    public let shape: Shape

    public init(_ shape: Shape) { self.shape = shape }

    /// `round:R` or `circle`.
    public var key: String {
        switch shape {
        case .corners(let radius): "round:\(radius)"
        case .circle: "circle"
        }
    }

    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        try image.checkedForTransform(by: key)
        let width = image.width, height = image.height
        let radius: Double
        switch shape {
        case .corners(let r):
            guard r >= 0 else {
                throw ImageKernelError(stage: .transform, plugin: key, code: .invalidArgument, message: "a corner radius cannot be negative (\(r))")
            }
            radius = min(Double(r), Double(min(width, height)) / 2)
        case .circle:
            radius = Double(min(width, height)) / 2
        }
        let isCircle = shape == .circle
        let premultiplied = image.pixelFormat.isPremultiplied
        let reach = Int(radius.rounded(.up))
        /// The centre coordinate of the arc that pixel `i` of a side of `length` lies beside, or
        /// nil where the side is straight (coverage 1, pixel untouched).
        func arcCentre(_ i: Int, length: Int) -> Double? {
            let c = Double(i) + 0.5
            if isCircle { return Double(length) / 2 }
            if i < reach && c < radius { return radius }
            if i >= length - reach && c > Double(length) - radius { return Double(length) - radius }
            return nil
        }
        return try image.mappingRows(to: image.withAlphaFormat, premultiplying: false) { y, row in
            guard let centreY = arcCentre(y, length: height) else { return }
            let dy = Double(y) + 0.5 - centreY
            for x in 0..<width {
                guard let centreX = arcCentre(x, length: width) else { continue }
                let dx = Double(x) + 0.5 - centreX
                let distance = (dx * dx + dy * dy).squareRoot()
                let coverage = Float(min(1, max(0, radius - distance + 0.5)))
                if coverage < 1 {
                    if premultiplied { row[x] *= coverage } else { row[x].w *= coverage }
                }
            }
        }
    }
}
