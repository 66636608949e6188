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
        let planes = [image.luma, image.blueDifference, image.redDifference]
        guard let plan = try planeFilters(
            width: image.width, height: image.height, planeSizes: planes.map { ($0.width, $0.height) },
            subsampling: image.subsampling, to: subsampling, attention: { () throws(ImageKernelError) in try AttentionMap(image) })
        else { return image }
        var resized: [Image] = []
        for (plane, filter) in zip(planes, plan.filters) {
            resized.append(try filter.apply(to: plane, codec: WorkingRowCodec(.gray8), outputFormat: .gray8))
        }
        return try YCbCrImage(
            luma: resized[0], blueDifference: resized[1], redDifference: resized[2],
            subsampling: subsampling, orientation: image.orientation, iccProfile: image.iccProfile)
    }

    /// The output's luma size and the filter of each plane (Y′, Cb, Cr, of `planeSizes`) for
    /// planes of a `width` x `height` image sampled `inFactor`, resized to the `subsampling` grid;
    /// nil when nothing changes. A smart `fill` asks `attention` for the planes' attention map.
    func planeFilters(
        width imageWidth: Int, height imageHeight: Int, planeSizes: [(width: Int, height: Int)], subsampling inFactor: YCbCrImage.Subsampling,
        to subsampling: YCbCrImage.Subsampling, attention: () throws(ImageKernelError) -> AttentionMap
    ) throws(ImageKernelError) -> (width: Int, height: Int, filters: [SeparableFilter])? {
        let outWidth: Int, outHeight: Int
        var source: (x: Double, y: Double, width: Double, height: Double)
        switch try geometry(imageWidth: imageWidth, imageHeight: imageHeight, attention: attention) {
        case .unchanged:
            if subsampling == inFactor { return nil }
            (outWidth, outHeight) = (imageWidth, imageHeight)
            source = (0, 0, Double(imageWidth), Double(imageHeight))
        case let .crop(width, height):
            (outWidth, outHeight) = (width, height)
            let origin = try placement.origin(
                width: Double(width), height: Double(height), imageWidth: imageWidth, imageHeight: imageHeight, attention: attention)
            source = (origin.x.rounded(.down), origin.y.rounded(.down), Double(width), Double(height))
        case let .resample(width, height, area):
            (outWidth, outHeight) = (width, height)
            source = area
        }
        let axes = FilterAxisCache.shared
        func filter(planeWidth: Int, planeHeight: Int, outputs: PixelSize, inFactor: (Int, Int), outFactor: (Int, Int)) -> SeparableFilter {
            // Output sample k of this plane covers output luma [f k, f (k + 1)), which maps to source
            // luma x + f k s onwards (s: source luma per output luma), i.e. plane samples from x / g.
            let scaleX = source.width / Double(outWidth), scaleY = source.height / Double(outHeight)
            let gx = Double(inFactor.0), gy = Double(inFactor.1)
            let fx = Double(outFactor.0), fy = Double(outFactor.1)
            let left = source.x / gx, top = source.y / gy
            return SeparableFilter(
                horizontal: axes.resampling(planeWidth, from: left, to: left + Double(outputs.width) * fx * scaleX / gx, outputCount: outputs.width, filter: self.filter),
                vertical: axes.resampling(planeHeight, from: top, to: top + Double(outputs.height) * fy * scaleY / gy, outputCount: outputs.height, filter: self.filter),
                threadLimit: threadLimit)
        }
        let chroma = subsampling.chromaSize(width: outWidth, height: outHeight)
        let inChroma = (inFactor.horizontal, inFactor.vertical), outChroma = (subsampling.horizontal, subsampling.vertical)
        let filters = [
            filter(planeWidth: planeSizes[0].width, planeHeight: planeSizes[0].height, outputs: PixelSize(width: outWidth, height: outHeight), inFactor: (1, 1), outFactor: (1, 1)),
            filter(planeWidth: planeSizes[1].width, planeHeight: planeSizes[1].height, outputs: chroma, inFactor: inChroma, outFactor: outChroma),
            filter(planeWidth: planeSizes[2].width, planeHeight: planeSizes[2].height, outputs: chroma, inFactor: inChroma, outFactor: outChroma),
        ]
        return (outWidth, outHeight, filters)
    }
}
