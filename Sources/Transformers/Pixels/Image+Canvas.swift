import ImageKernel

extension Image {
    /// This image at `x, y` on a `width`×`height` canvas of `fill` (straight colour), cut where it
    /// runs past the canvas. The result gains an alpha channel when `fill` is not opaque and this
    /// image has none; samples are copied exactly.
    func placed(onCanvasOf width: Int, _ height: Int, x: Int, y: Int, fill: RGBAColor) throws(ImageKernelError) -> Image {
        let format = fill.alpha < 255 ? withAlphaFormat : pixelFormat
        let input = WorkingRowCodec(pixelFormat, premultiplying: false), output = WorkingRowCodec(format, premultiplying: false)
        let gray = format.layout == .gray || format.layout == .grayAlpha
        let background = fill.working(maxValue: output.maxValue, gray: gray, premultiplied: format.isPremultiplied)
        // The part of this image on the canvas.
        let left = max(0, x), right = min(width, x + self.width), top = max(0, y), bottom = min(height, y + self.height)
        let result = pixels.withUnsafeBytes { source in
            let base = source.baseAddress!
            return Result { () throws(ImageKernelError) in try Image.rendering(
                like: self, width: width, height: height, format: format, codec: output, work: width * height
            ) { row, pixelsOut in
                guard row >= top, row < bottom, left < right else {
                    pixelsOut.update(repeating: background, count: width)
                    return
                }
                pixelsOut.update(repeating: background, count: left)
                input.load(base + (row - y) * bytesPerRow + (left - x) * pixelFormat.bytesPerPixel, width: right - left, into: pixelsOut + left)
                (pixelsOut + right).update(repeating: background, count: width - right)
            } }
        }
        return try result.get()
    }
}
