import BenchSupport
import CoderJPEG
import Foundation
import ImageKernel

/// The files the benchmark decodes and the images it encodes.
enum Corpus {
    /// The repository's `Tests/Corpora` (or `$IMAGEKERNEL_TESTDATA`).
    static let testData: URL = testDataRoot()

    /// Real photos (1800x1200 and 1200x1800, baseline 4:2:0) plus progressive, grayscale and
    /// restart-marker files; all RGB or gray so libjpeg alone produces the same pixel format.
    static func decodeSet() throws -> [(name: String, data: Data)] {
        var paths = ["Landscape", "Portrait"].flatMap { kind in (1...8).map { "exif-orientation/recurser/\(kind)_\($0).jpg" } }
        paths += [
            "jpeg/derived/testorig-progressive.jpg", "jpeg/derived/testorig-grayscale.jpg",
            "jpeg/derived/testorig-restart1-optimized.jpg", "jpeg/pillow/hopper.jpg", "jpeg/mozilla/jpg-progressive.jpg",
        ]
        return try paths.map { ($0, try Data(contentsOf: testData.appendingPathComponent($0))) }
    }

    /// A smooth 24-megapixel picture with some texture, encoded by CoderJPEG at quality 0.85.
    static func largeJPEG(width: Int = 6000, height: Int = 4000) throws -> Data {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        pixels.withUnsafeMutableBufferPointer { p in
            for y in 0..<height {
                var o = y * width * 3
                for x in 0..<width {
                    p[o] = UInt8(x * 255 / (width - 1))
                    p[o + 1] = UInt8(y * 255 / (height - 1))
                    p[o + 2] = UInt8(truncatingIfNeeded: ((x / 7) ^ (y / 5)) &* 37)
                    o += 3
                }
            }
        }
        let image = try Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels)
        return try JPEGCoder().encode(image, as: .jpeg, options: EncodeOptions(quality: 0.85))
    }
}

extension Corpus {
    /// A real 1800x1200 photo from the corpus, bilinearly upscaled to 6000x4000 and encoded by
    /// CoderJPEG at quality 0.85.
    static func upscaledPhoto(_ photo: Image, width: Int = 6000, height: Int = 4000) throws -> Data {
        precondition(photo.pixelFormat == .rgb8)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let (sw, sh, stride) = (photo.width, photo.height, photo.bytesPerRow)
        photo.pixels.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    let fy = Double(y) * Double(sh - 1) / Double(height - 1)
                    let y0 = Int(fy), y1 = min(sh - 1, y0 + 1), wy = fy - Double(y0)
                    for x in 0..<width {
                        let fx = Double(x) * Double(sw - 1) / Double(width - 1)
                        let x0 = Int(fx), x1 = min(sw - 1, x0 + 1), wx = fx - Double(x0)
                        for c in 0..<3 {
                            let a = Double(src[y0 * stride + x0 * 3 + c]), b = Double(src[y0 * stride + x1 * 3 + c])
                            let d = Double(src[y1 * stride + x0 * 3 + c]), e = Double(src[y1 * stride + x1 * 3 + c])
                            let top = a + (b - a) * wx, bottom = d + (e - d) * wx
                            dst[(y * width + x) * 3 + c] = UInt8(top + (bottom - top) * wy + 0.5)
                        }
                    }
                }
            }
        }
        let image = try Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels)
        return try JPEGCoder().encode(image, as: .jpeg, options: EncodeOptions(quality: 0.85))
    }
}
