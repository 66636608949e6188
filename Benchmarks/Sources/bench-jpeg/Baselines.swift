import CBenchJPEG
import Foundation
import ImageKernel

/// libjpeg-turbo called directly from C, same pixel formats as CoderJPEG.
enum DirectLibjpeg {
    struct Failure: Error {}

    /// Decodes at `numerator`/8 and frees the pixels; returns the output size.
    @discardableResult
    static func decode(_ data: Data, numerator: Int = 8) throws -> (width: Int, height: Int, channels: Int) {
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: UInt32 = 0
        var height: UInt32 = 0
        var channels: Int32 = 0
        let status = data.withUnsafeBytes { bytes in
            cbench_jpeg_decode(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(numerator), &pixels, &width, &height, &channels)
        }
        guard status == 0 else { throw Failure() }
        cbench_free(pixels)
        return (Int(width), Int(height), Int(channels))
    }

    @discardableResult
    static func encode(_ image: Image, quality: Int, subsampling444: Bool = false, progressive: Bool = false) throws -> Int {
        var out: UnsafeMutablePointer<UInt8>?
        var count = 0
        let status = image.pixels.withUnsafeBufferPointer { p in
            cbench_jpeg_encode(
                p.baseAddress, UInt32(image.width), UInt32(image.height), Int32(image.pixelFormat.channelCount), Int32(quality),
                subsampling444 ? 1 : 0, progressive ? 1 : 0, &out, &count)
        }
        guard status == 0 else { throw Failure() }
        cbench_free(out)
        return count
    }
}

/// The straightforward way to a thumbnail: every source pixel of a full decode averaged into
/// its box (area averaging), in plain Swift.
enum NaiveResize {
    static func downscale(_ image: Image, to size: PixelSize) -> [UInt8] {
        let channels = image.pixelFormat.channelCount
        let (w, h, ow, oh) = (image.width, image.height, size.width, size.height)
        var sums = [UInt32](repeating: 0, count: ow * oh * channels)
        var counts = [UInt32](repeating: 0, count: ow * oh)
        let column = (0..<w).map { $0 * ow / w }
        image.pixels.withUnsafeBufferPointer { src in
            sums.withUnsafeMutableBufferPointer { sum in
                counts.withUnsafeMutableBufferPointer { count in
                    for y in 0..<h {
                        let oy = y * oh / h
                        let row = y * image.bytesPerRow
                        for x in 0..<w {
                            let o = oy * ow + column[x]
                            count[o] += 1
                            for c in 0..<channels { sum[o * channels + c] += UInt32(src[row + x * channels + c]) }
                        }
                    }
                }
            }
        }
        return sums.indices.map { UInt8(sums[$0] / max(1, counts[$0 / channels])) }
    }
}
