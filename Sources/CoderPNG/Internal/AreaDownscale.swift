import ImageKernel

/// Box-filter (area average) reduction used for thumbnails, since PNG cannot decode to a
/// smaller size. Colour is averaged weighted by alpha, so fully transparent pixels do not bleed
/// their (meaningless) colour into the result.
enum AreaDownscale {
    /// The kernel's thumbnail size (aspect kept, inside `target`, never enlarged), or nil when
    /// that is the image's own size.
    static func fittingSize(width: Int, height: Int, target: PixelSize) -> PixelSize? {
        guard width > 0, height > 0, target.width > 0, target.height > 0 else { return nil }
        let size = PixelSize.thumbnail(of: PixelSize(width: width, height: height), fitting: target)
        return size.width < width || size.height < height ? size : nil
    }

    static func downscale(_ image: Image, width: Int, height: Int) throws(ImageKernelError) -> Image {
        let format = image.pixelFormat
        let outRowBytes = width * format.bytesPerPixel
        var out = [UInt8](repeating: 0, count: outRowBytes * height)
        image.pixels.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { target in
                if format.bitsPerComponent == 16 {
                    average(
                        source.bindMemory(to: UInt16.self), sourceStride: image.bytesPerRow / 2,
                        sourceWidth: image.width, sourceHeight: image.height, channels: format.channelCount,
                        hasAlpha: format.hasAlpha, into: target.bindMemory(to: UInt16.self), width: width, height: height)
                } else {
                    average(
                        source.bindMemory(to: UInt8.self), sourceStride: image.bytesPerRow,
                        sourceWidth: image.width, sourceHeight: image.height, channels: format.channelCount,
                        hasAlpha: format.hasAlpha, into: target.bindMemory(to: UInt8.self), width: width, height: height)
                }
            }
        }
        var result = try Image(width: width, height: height, pixelFormat: format, bytesPerRow: outRowBytes, pixels: out)
        result.orientation = image.orientation
        result.iccProfile = image.iccProfile
        result.sourceFormat = image.sourceFormat
        result.scale = image.scale
        result.isPreview = image.isPreview
        return result
    }

    /// Source spans [start, end) of each output index: every source pixel lands in exactly one box.
    private static func spans(source: Int, target: Int) -> [(start: Int, end: Int)] {
        (0..<target).map { i in
            let start = i * source / target
            return (start, max(start + 1, (i + 1) * source / target))
        }
    }

    private static func average<Sample: FixedWidthInteger & UnsignedInteger>(
        _ source: UnsafeBufferPointer<Sample>, sourceStride: Int, sourceWidth: Int, sourceHeight: Int,
        channels: Int, hasAlpha: Bool, into target: UnsafeMutableBufferPointer<Sample>, width: Int, height: Int
    ) {
        let columns = spans(source: sourceWidth, target: width)
        let rows = spans(source: sourceHeight, target: height)
        let colours = hasAlpha ? channels - 1 : channels
        var sums = [UInt64](repeating: 0, count: width * channels)
        for (y, rowSpan) in rows.enumerated() {
            for i in sums.indices { sums[i] = 0 }
            for sy in rowSpan.start..<rowSpan.end {
                let row = sy * sourceStride
                for (x, columnSpan) in columns.enumerated() {
                    let o = x * channels
                    for sx in columnSpan.start..<columnSpan.end {
                        let p = row + sx * channels
                        if hasAlpha {
                            let alpha = UInt64(source[p + colours])
                            for c in 0..<colours { sums[o + c] &+= UInt64(source[p + c]) &* alpha }
                            sums[o + colours] &+= alpha
                        } else {
                            for c in 0..<channels { sums[o + c] &+= UInt64(source[p + c]) }
                        }
                    }
                }
            }
            let outRow = y * width * channels
            for (x, columnSpan) in columns.enumerated() {
                let o = x * channels
                let count = UInt64((columnSpan.end - columnSpan.start) * (rowSpan.end - rowSpan.start))
                if hasAlpha {
                    let alphaSum = sums[o + colours]
                    for c in 0..<colours {
                        target[outRow + o + c] = alphaSum == 0 ? 0 : Sample((sums[o + c] + alphaSum / 2) / alphaSum)
                    }
                    target[outRow + o + colours] = Sample((alphaSum + count / 2) / count)
                } else {
                    for c in 0..<channels { target[outRow + o + c] = Sample((sums[o + c] + count / 2) / count) }
                }
            }
        }
    }
}
