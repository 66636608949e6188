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
        return try image.mappingRows(to: image.withAlphaFormat, premultiplying: false) { y, row in
            let cy = Double(y) + 0.5
            // The x ranges where coverage can be below 1 on this row: all of it for a circle, the
            // corner squares' columns for corners (only on rows inside a corner square).
            let centreY: Double
            if isCircle {
                centreY = Double(height) / 2
            } else if y < reach {
                centreY = radius
            } else if y >= height - reach {
                centreY = Double(height) - radius
            } else {
                return
            }
            let dy = cy - centreY
            for x in 0..<width {
                let cx = Double(x) + 0.5
                let centreX: Double
                if isCircle {
                    centreX = Double(width) / 2
                } else if x < reach {
                    centreX = radius
                } else if x >= width - reach {
                    centreX = Double(width) - radius
                } else {
                    continue
                }
                let dx = cx - centreX
                if !isCircle && ((x < reach && dx > 0) || (x >= width - reach && dx < 0) || (y < reach && dy > 0) || (y >= height - reach && dy < 0)) {
                    continue
                }
                let distance = (dx * dx + dy * dy).squareRoot()
                let coverage = Float(min(1, max(0, radius - distance + 0.5)))
                if coverage < 1 {
                    if premultiplied { row[x] *= coverage } else { row[x].w *= coverage }
                }
            }
        }
    }
}
