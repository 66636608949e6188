import ImageKernel

/// 8-bit RGBA pixels with an EXIF orientation applied (the displayed image), for comparing a
/// decode that reports its orientation (not applied) with a reference that shows the image as
/// oriented, as REFERENCE-FORMATS.tsv does. The same as `OrientTransformer` on RGBA8, written out
/// here so the tests do not check the kernel against itself.
public func applying(_ orientation: ExifOrientation, to rgba: [UInt8], width: Int, height: Int) -> (pixels: [UInt8], width: Int, height: Int) {
    let swaps = orientation.rawValue >= 5
    let (outWidth, outHeight) = swaps ? (height, width) : (width, height)
    var out = [UInt8](repeating: 0, count: rgba.count)
    for y in 0..<outHeight {
        for x in 0..<outWidth {
            // The stored pixel shown at (x, y).
            let (sx, sy): (Int, Int)
            switch orientation {
            case .up: (sx, sy) = (x, y)
            case .upMirrored: (sx, sy) = (width - 1 - x, y)
            case .down: (sx, sy) = (width - 1 - x, height - 1 - y)
            case .downMirrored: (sx, sy) = (x, height - 1 - y)
            case .leftMirrored: (sx, sy) = (y, x)
            case .right: (sx, sy) = (y, height - 1 - x)
            case .rightMirrored: (sx, sy) = (width - 1 - y, height - 1 - x)
            case .left: (sx, sy) = (width - 1 - y, x)
            }
            let o = (y * outWidth + x) * 4, s = (sy * width + sx) * 4
            out[o..<(o + 4)] = rgba[s..<(s + 4)]
        }
    }
    return (out, outWidth, outHeight)
}
