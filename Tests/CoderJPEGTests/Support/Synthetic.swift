import CoderJPEG
import Foundation
import ImageKernel

/// Images made at test time, so no tool beyond the coder under test is needed.
enum Synthetic {
    /// A smooth RGB gradient with a soft diagonal pattern: compresses like a photo, not like noise.
    static func rgbImage(width: Int, height: Int) throws -> Image {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        pixels.withUnsafeMutableBufferPointer { p in
            for y in 0..<height {
                let g = UInt8(y * 255 / max(1, height - 1))
                var o = y * width * 3
                for x in 0..<width {
                    p[o] = UInt8(x * 255 / max(1, width - 1))
                    p[o + 1] = g
                    p[o + 2] = UInt8(truncatingIfNeeded: (x + y) & 0x3F) &* 4
                    o += 3
                }
            }
        }
        return try Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels)
    }

    /// A JPEG of ``rgbImage(width:height:)`` made by ``JPEGCoder``.
    static func jpeg(width: Int, height: Int, quality: Double = 0.85, progressive: Bool = false) throws -> Data {
        try JPEGCoder().encode(
            rgbImage(width: width, height: height), as: .jpeg,
            options: EncodeOptions(quality: quality, progressive: progressive))
    }

    /// Mean absolute difference per sample of two same-sized images, over RGBA8.
    static func meanAbsoluteDifference(_ a: Image, _ b: Image) -> Double {
        let pa = a.rgba8Pixels()
        let pb = b.rgba8Pixels()
        guard pa.count == pb.count, !pa.isEmpty else { return .infinity }
        var total = 0
        for i in 0..<pa.count { total += abs(Int(pa[i]) - Int(pb[i])) }
        return Double(total) / Double(pa.count)
    }
}
