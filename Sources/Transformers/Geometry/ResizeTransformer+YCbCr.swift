import ImageKernel

extension ResizeTransformer {
    /// Resizes Y′CbCr planes as ``transform(_:)`` resizes the RGB image they stand for: the luma
    /// plane with exactly the same geometry, each chroma plane over the same source area on its
    /// own grid, to the grid `subsampling` gives the output (so 4:4:4 or 4:2:2 planes can come out
    /// 4:2:0 without a separate downsampling pass).
    ///
    /// Linear filters commute with the (affine) Y′CbCr ↔ RGB conversion, so the result differs
    /// from converting, resizing in RGB and converting back only by rounding and by clamping
    /// (which the RGB path does more of). A `fill` at scale 1 is a crop on the luma grid; a chroma
    /// grid it does not align with is resampled.
    public func transform(_ image: YCbCrImage, subsampling: YCbCrImage.Subsampling) throws(ImageKernelError) -> YCbCrImage {
        for plane in [image.luma, image.blueDifference, image.redDifference] { try plane.checkedForTransform(by: key) }
        let inFactor = image.subsampling
        let outWidth: Int, outHeight: Int
        var source: (x: Double, y: Double, width: Double, height: Double)
        switch try geometry(imageWidth: image.width, imageHeight: image.height) {
        case .unchanged:
            if subsampling == inFactor { return image }
            (outWidth, outHeight) = (image.width, image.height)
            source = (0, 0, Double(image.width), Double(image.height))
        case let .crop(width, height):
            (outWidth, outHeight) = (width, height)
            let x = Double(gravity.offset(kept: width, total: image.width, vertical: false))
            let y = Double(gravity.offset(kept: height, total: image.height, vertical: true))
            source = (x, y, Double(width), Double(height))
        case let .resample(width, height, area):
            (outWidth, outHeight) = (width, height)
            source = area
        }
        let axes = FilterAxisCache.shared
        func resample(_ plane: Image, outputs: PixelSize, inFactor: (Int, Int), outFactor: (Int, Int)) throws(ImageKernelError) -> Image {
            // Output sample k of this plane covers output luma [f k, f (k + 1)), which maps to source
            // luma x + f k s onwards (s: source luma per output luma), i.e. plane samples from x / g.
            let scaleX = source.width / Double(outWidth), scaleY = source.height / Double(outHeight)
            let gx = Double(inFactor.0), gy = Double(inFactor.1)
            let fx = Double(outFactor.0), fy = Double(outFactor.1)
            let left = source.x / gx, top = source.y / gy
            let filter = SeparableFilter(
                horizontal: axes.resampling(plane.width, from: left, to: left + Double(outputs.width) * fx * scaleX / gx, outputCount: outputs.width, filter: self.filter),
                vertical: axes.resampling(plane.height, from: top, to: top + Double(outputs.height) * fy * scaleY / gy, outputCount: outputs.height, filter: self.filter),
                threadLimit: threadLimit)
            return try filter.apply(to: plane, codec: WorkingRowCodec(.gray8), outputFormat: .gray8)
        }
        let chroma = subsampling.chromaSize(width: outWidth, height: outHeight)
        let inChroma = (inFactor.horizontal, inFactor.vertical), outChroma = (subsampling.horizontal, subsampling.vertical)
        return try YCbCrImage(
            luma: try resample(image.luma, outputs: PixelSize(width: outWidth, height: outHeight), inFactor: (1, 1), outFactor: (1, 1)),
            blueDifference: try resample(image.blueDifference, outputs: chroma, inFactor: inChroma, outFactor: outChroma),
            redDifference: try resample(image.redDifference, outputs: chroma, inFactor: inChroma, outFactor: outChroma),
            subsampling: subsampling, orientation: image.orientation, iccProfile: image.iccProfile)
    }
}
