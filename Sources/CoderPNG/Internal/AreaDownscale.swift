import ImageKernel

/// Area-average reduction of an image that is already decoded in full (interlaced files and
/// progressive previews), through the same ``BoxDownscaler`` the row-by-row path uses, so both
/// give identical pixels.
enum AreaDownscale {
    /// `pixels` (`bytesPerRow` apart, `source` size, `format`) averaged down to `size`.
    static func downscale(_ pixels: [UInt8], bytesPerRow: Int, format: PixelFormat, from source: PixelSize, to size: PixelSize) -> [UInt8] {
        var scaler = BoxDownscaler(
            format: format, sourceWidth: source.width, sourceHeight: source.height, width: size.width, height: size.height)
        let usedBytes = source.width * format.bytesPerPixel
        pixels.withUnsafeBytes { bytes in
            for y in 0..<source.height {
                scaler.add(row: UnsafeRawBufferPointer(rebasing: bytes[y * bytesPerRow..<y * bytesPerRow + usedBytes]))
            }
        }
        return scaler.finish()
    }

    /// `image` averaged down to `size`, keeping its metadata.
    static func downscale(_ image: Image, to size: PixelSize) throws(ImageKernelError) -> Image {
        let pixels = downscale(
            image.pixels, bytesPerRow: image.bytesPerRow, format: image.pixelFormat,
            from: PixelSize(width: image.width, height: image.height), to: size)
        var result = try Image(
            width: size.width, height: size.height, pixelFormat: image.pixelFormat,
            bytesPerRow: size.width * image.pixelFormat.bytesPerPixel, pixels: pixels)
        result.orientation = image.orientation
        result.iccProfile = image.iccProfile
        result.cicp = image.cicp
        result.sourceFormat = image.sourceFormat
        result.scale = image.scale
        result.isPreview = image.isPreview
        return result
    }
}
