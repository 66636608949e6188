import Foundation

extension ImgproxyGeometry {
    /// imgproxy's `scaleOnLoad` factor for this geometry of a `width` x `height` image (after
    /// rotation): the smaller of the two shrinks to the sizes the scales give, as imgproxy takes it
    /// (the rounded sizes, so a side given alone does not over-shrink the other). Below 1 the
    /// image is to be drawn larger than its own size, as imgproxy draws vector sources.
    func loadShrink(width: Int, height: Int) -> Double {
        let scaledWidth = Self.scale(width, widthScale), scaledHeight = Self.scale(height, heightScale)
        guard scaledWidth > 0, scaledHeight > 0 else { return 1 }
        return min(Double(width) / Double(scaledWidth), Double(height) / Double(scaledHeight))
    }

    /// The rest of imgproxy's `scaleOnLoad` once an image of `sourceWidth` x `sourceHeight` (after
    /// rotation) was drawn at `loadedWidth` x `loadedHeight`: the scales then apply to the drawing
    /// (1 where it already has the scaled size), the crop and the crop gravity's pixel offsets
    /// shrink with it, and the scaled size is the drawing's crop scaled. The target, the crop to
    /// the result, the canvas and the dpr are in result pixels and stay as they are.
    /// - Returns: the crop gravity with its offsets in the drawing's pixels.
    mutating func scaleOnLoad(
        loadedWidth: Int, loadedHeight: Int, sourceWidth: Int, sourceHeight: Int, cropGravity: ImgproxyOptions.GravityOption
    ) -> ImgproxyOptions.GravityOption {
        guard loadedWidth > 0, loadedHeight > 0 else { return cropGravity }
        let wpreshrink = Double(sourceWidth) / Double(loadedWidth), hpreshrink = Double(sourceHeight) / Double(loadedHeight)
        widthScale *= wpreshrink
        heightScale *= hpreshrink
        if loadedWidth == Self.scale(loadedWidth, widthScale) { widthScale = 1 }
        if loadedHeight == Self.scale(loadedHeight, heightScale) { heightScale = 1 }
        if cropWidth > 0 { cropWidth = max(1, Self.round(Double(cropWidth) / wpreshrink)) }
        if cropHeight > 0 { cropHeight = max(1, Self.round(Double(cropHeight) / hpreshrink)) }
        scaledWidth = Self.scale(Self.minNonZero(cropWidth, loadedWidth), widthScale)
        scaledHeight = Self.scale(Self.minNonZero(cropHeight, loadedHeight), heightScale)
        // Focus points are fractions; other gravities' offsets from 1 up are pixels, kept whole
        // (rounded, so an offset never turns into a fraction).
        var gravity = cropGravity
        if gravity.kind != .fp {
            if abs(gravity.x) >= 1 { gravity.x = Double(Self.roundToEven(gravity.x / wpreshrink)) }
            if abs(gravity.y) >= 1 { gravity.y = Double(Self.roundToEven(gravity.y / hpreshrink)) }
        }
        return gravity
    }
}
