import ImageKernel

/// An exact pixel mapping: output pixel `(x, y)` is source pixel
/// `(originX + xPerX·x + xPerY·y, originY + yPerX·x + yPerY·y)`. Crops, flips and the eight
/// EXIF orientations are all of this form; nothing is resampled, so the result is exact.
struct PixelMapping {
    var width: Int
    var height: Int
    var originX: Int
    var originY: Int
    var xPerX: Int
    var xPerY: Int
    var yPerX: Int
    var yPerY: Int

    /// The region `x, y, width, height` as it is.
    static func crop(x: Int, y: Int, width: Int, height: Int) -> PixelMapping {
        PixelMapping(width: width, height: height, originX: x, originY: y, xPerX: 1, xPerY: 0, yPerX: 0, yPerY: 1)
    }

    /// The mapping that displays an image of `width`×`height` stored in `orientation` upright.
    static func upright(_ orientation: ExifOrientation, width w: Int, height h: Int) -> PixelMapping {
        switch orientation {
        case .up: crop(x: 0, y: 0, width: w, height: h)
        case .upMirrored: PixelMapping(width: w, height: h, originX: w - 1, originY: 0, xPerX: -1, xPerY: 0, yPerX: 0, yPerY: 1)
        case .down: PixelMapping(width: w, height: h, originX: w - 1, originY: h - 1, xPerX: -1, xPerY: 0, yPerX: 0, yPerY: -1)
        case .downMirrored: PixelMapping(width: w, height: h, originX: 0, originY: h - 1, xPerX: 1, xPerY: 0, yPerX: 0, yPerY: -1)
        case .leftMirrored: PixelMapping(width: h, height: w, originX: 0, originY: 0, xPerX: 0, xPerY: 1, yPerX: 1, yPerY: 0)
        case .right: PixelMapping(width: h, height: w, originX: 0, originY: h - 1, xPerX: 0, xPerY: 1, yPerX: -1, yPerY: 0)
        case .rightMirrored: PixelMapping(width: h, height: w, originX: w - 1, originY: h - 1, xPerX: 0, xPerY: -1, yPerX: -1, yPerY: 0)
        case .left: PixelMapping(width: h, height: w, originX: w - 1, originY: 0, xPerX: 0, xPerY: -1, yPerX: 1, yPerY: 0)
        }
    }
}

extension Image {
    /// The pixels `mapping` selects, in this image's format and metadata, tightly packed.
    func remapped(_ mapping: PixelMapping) throws(ImageKernelError) -> Image {
        let bpp = pixelFormat.bytesPerPixel
        let outRowBytes = mapping.width * bpp
        var output = [UInt8](repeating: 0, count: outRowBytes * mapping.height)
        let sourceRowBytes = bytesPerRow
        let step = mapping.yPerX * sourceRowBytes + mapping.xPerX * bpp
        pixels.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { destination in
                let src = source.baseAddress!, dst = destination.baseAddress!
                for y in 0..<mapping.height {
                    let sx = mapping.originX + mapping.xPerY * y, sy = mapping.originY + mapping.yPerY * y
                    var from = src + sy * sourceRowBytes + sx * bpp
                    var to = dst + y * outRowBytes
                    if step == bpp {
                        to.copyMemory(from: from, byteCount: outRowBytes)
                        continue
                    }
                    for _ in 0..<mapping.width {
                        to.copyMemory(from: from, byteCount: bpp)
                        from += step
                        to += bpp
                    }
                }
            }
        }
        return try derived(width: mapping.width, height: mapping.height, format: pixelFormat, pixels: output)
    }
}
