import ImageKernel

/// Where an image draws the eye, measured on a small downscale (the longer side at most
/// ``side`` pixels), in the spirit of libvips' `attention` smart crop.
///
/// Each small pixel scores the sum of
/// - **edges**: the magnitude of the Laplacian of luma (detail, text, outlines), inside the border;
/// - **saturation**: chroma (`max − min` of R, G, B) above 48 levels, so grey or muted
///   backgrounds score nothing;
/// - **skin**: closeness of the pixel's normalised colour to a skin tone (weighted 2×, as faces
///   matter most), for pixels neither very dark nor very bright;
///
/// times the pixel's opacity. A window is scored by the sum over the pixels it covers (a
/// summed-area table makes every position one lookup), and the best window wins; equal scores go
/// to the window nearest the centre, so a plain image is cropped in the middle. Unlike libvips,
/// which centres the window on the single strongest point, the sum keeps as much of a large
/// subject as the window can hold.
struct AttentionMap {
    /// The longer side of the downscale the measure runs on.
    static let side = 128

    let width: Int
    let height: Int
    let sourceWidth: Int
    let sourceHeight: Int
    /// Summed-area table, `(width + 1) × (height + 1)`, row-major.
    private let table: [Double]

    /// The map of `image` (any pixel format).
    init(_ image: Image) throws(ImageKernelError) {
        let size = AttentionMap.smallSize(width: image.width, height: image.height)
        let small = size.width < image.width || size.height < image.height ? try image.areaDownscaled(to: size) : image
        let rgba = small.rgba8Pixels()
        self.init(width: size.width, height: size.height, sourceWidth: image.width, sourceHeight: image.height) { x, y in
            let i = (y * size.width + x) * 4
            return SIMD4<Float>(Float(rgba[i]), Float(rgba[i + 1]), Float(rgba[i + 2]), Float(rgba[i + 3]))
        }
    }

    /// The map of the image that full-range Y′CbCr planes (JPEG's) stand for.
    init(_ planes: YCbCrImage) throws(ImageKernelError) {
        let size = AttentionMap.smallSize(width: planes.width, height: planes.height)
        func reduced(_ plane: Image) throws(ImageKernelError) -> Image {
            let target = PixelSize(width: min(size.width, plane.width), height: min(size.height, plane.height))
            return target.width < plane.width || target.height < plane.height ? try plane.areaDownscaled(to: target) : plane
        }
        let luma = try reduced(planes.luma), cb = try reduced(planes.blueDifference), cr = try reduced(planes.redDifference)
        func sample(_ plane: Image, _ x: Int, _ y: Int) -> Float {
            Float(plane.pixels[(y * plane.height / size.height) * plane.bytesPerRow + x * plane.width / size.width])
        }
        self.init(width: size.width, height: size.height, sourceWidth: planes.width, sourceHeight: planes.height) { x, y in
            let l = sample(luma, x, y), b = sample(cb, x, y) - 128, r = sample(cr, x, y) - 128
            let rgb = SIMD4<Float>(l + 1.402 * r, l - 0.344136 * b - 0.714136 * r, l + 1.772 * b, 255)
            return rgb.clamped(lowerBound: SIMD4(repeating: 0), upperBound: SIMD4(repeating: 255))
        }
    }

    static func smallSize(width: Int, height: Int) -> PixelSize {
        let longer = max(width, height)
        guard longer > side else { return PixelSize(width: width, height: height) }
        return PixelSize(width: max(1, (width * side + longer / 2) / longer), height: max(1, (height * side + longer / 2) / longer))
    }

    /// Scores every pixel of a `width`×`height` downscale whose straight RGBA (0…255) `pixel` gives.
    private init(width: Int, height: Int, sourceWidth: Int, sourceHeight: Int, pixel: (Int, Int) -> SIMD4<Float>) {
        self.width = width
        self.height = height
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        var colours = [SIMD4<Float>](repeating: .zero, count: width * height)
        // Luma in thousandths of a level, in integers: a smooth ramp has a Laplacian of exactly 0.
        var luma = [Int32](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let p = pixel(x, y).rounded(.toNearestOrEven)
                colours[y * width + x] = p
                luma[y * width + x] = 299 * Int32(p.x) + 587 * Int32(p.y) + 114 * Int32(p.z)
            }
        }
        let skinTone = SIMD3<Float>(0.78, 0.57, 0.44)
        var table = [Double](repeating: 0, count: (width + 1) * (height + 1))
        for y in 0..<height {
            var rowSum = 0.0
            for x in 0..<width {
                let i = y * width + x
                let p = colours[i]
                let l = luma[i]
                // The outermost pixels have no neighbours on one side: they score no edge.
                var edge: Float = 0
                if x > 0, y > 0, x < width - 1, y < height - 1 {
                    edge = Float(abs(4 * l - luma[i - 1] - luma[i + 1] - luma[i - width] - luma[i + width])) / 255_000
                }
                let chroma = max(p.x, p.y, p.z) - min(p.x, p.y, p.z)
                let saturation = max(0, chroma - 48) / 207
                let rgb = SIMD3<Float>(p.x, p.y, p.z)
                let length = (rgb * rgb).sum().squareRoot()
                var skin: Float = 0
                if length > 0, l > 40_000, l < 240_000 {
                    let d = rgb / length - skinTone
                    skin = max(0, 1 - 8 * (d * d).sum().squareRoot())
                }
                rowSum += Double((edge + saturation + 2 * skin) * p.w / 255)
                table[(y + 1) * (width + 1) + x + 1] = table[y * (width + 1) + x + 1] + rowSum
            }
        }
        self.table = table
    }

    /// The sum over the small pixels `x..<x+w`, `y..<y+h`.
    private func sum(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> Double {
        let stride = width + 1
        return table[(y + h) * stride + x + w] - table[y * stride + x + w] - table[(y + h) * stride + x] + table[y * stride + x]
    }

    /// The top-left corner, in source pixels, of the `windowWidth`×`windowHeight` (source pixels)
    /// window with the most attention.
    func bestOrigin(windowWidth: Double, windowHeight: Double) -> (x: Double, y: Double) {
        let scaleX = Double(width) / Double(sourceWidth), scaleY = Double(height) / Double(sourceHeight)
        let w = min(width, max(1, Int((windowWidth * scaleX).rounded()))), h = min(height, max(1, Int((windowHeight * scaleY).rounded())))
        let centreX = Double(width - w) / 2, centreY = Double(height - h) / 2
        var best = (x: 0, y: 0), bestScore = -Double.infinity, bestDistance = Double.infinity
        for y in 0...(height - h) {
            for x in 0...(width - w) {
                let score = sum(x, y, w, h)
                // Sums of the same pixels taken in another order differ in the last bits.
                let tolerance = 1e-9 * max(1, abs(bestScore))
                let distance = (Double(x) - centreX) * (Double(x) - centreX) + (Double(y) - centreY) * (Double(y) - centreY)
                if score > bestScore + tolerance || (score >= bestScore - tolerance && distance < bestDistance) {
                    best = (x, y)
                    bestScore = score
                    bestDistance = distance
                }
            }
        }
        // The chosen small window's centre, mapped back, is the source window's centre.
        return ((Double(best.x) + Double(w) / 2) / scaleX - windowWidth / 2, (Double(best.y) + Double(h) / 2) / scaleY - windowHeight / 2)
    }
}
