import ImageKernel

/// Replaces each `size`×`size` block by its average colour (alpha premultiplied, so transparent
/// pixels lend no colour), keeping the image's size and pixel format; the blocks start at the
/// top-left corner and the last ones in a row or column may be narrower. imgproxy's `pixelate`.
public struct PixelateTransformer: ImageTransformer {
    /// The side of a block in pixels; 1 or less returns the image as it is.
    public let size: Int

    public init(size: Int) { self.size = size }

    /// `pixelate:N`.
    public var key: String { "pixelate:\(size)" }

    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        try image.checkedForTransform(by: key)
        let side = min(size, max(image.width, image.height))
        guard side > 1 else { return image }
        let columns = (image.width + side - 1) / side, rows = (image.height + side - 1) / side
        let codec = WorkingRowCodec(image.pixelFormat, premultiplying: true)
        let averages = try image.withWorkingPlane(codec: codec) { plane -> [WorkingPixel] in
            var sums = [WorkingPixel](repeating: .zero, count: columns * rows)
            for y in 0..<image.height {
                let line = plane + y * image.width, base = (y / side) * columns
                for x in 0..<image.width { sums[base + x / side] += line[x] }
            }
            for blockRow in 0..<rows {
                let height = min(side, image.height - blockRow * side)
                for blockColumn in 0..<columns {
                    let width = min(side, image.width - blockColumn * side)
                    sums[blockRow * columns + blockColumn] /= WorkingPixel(repeating: Float(width * height))
                }
            }
            return sums
        }
        return try image.mappingRows(premultiplying: true) { y, row in
            let base = (y / side) * columns
            for x in 0..<image.width { row[x] = averages[base + x / side] }
        }
    }
}
