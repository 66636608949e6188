@testable import CoderJPEG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// Thumbnails decoded at 8/8 come from libjpeg's raw YCbCr planes: each plane is area-averaged to
/// the target and converted to RGB there. The previous path (merged chroma upsampling, colour
/// conversion at full size, then the RGB area average) is the reference.
///
/// Tolerance. Merged upsampling replicates each chroma sample over the luma samples it covers, so
/// averaging replicated chroma over an output pixel's area *is* the area average of the chroma
/// plane: the two paths differ only by (a) colour conversion before versus after averaging, which
/// is linear except where full-size pixels clip at 0 or 255 (saturated, out-of-gamut colours near
/// edges), and (b) fixed-point rounding (8-bit vertical and 15-bit horizontal weights, 7-bit
/// fractions in the conversion), worth at most about 1 per sample. So the mean absolute difference
/// must stay under 0.75 and the largest under 32: a clipped edge can move one sample by more than
/// rounding can, but a mistake in a plane's geometry (an offset or wrong scale) shows as a mean of
/// several units. Measured when written: means 0.16 to 0.24 everywhere; largest 3 to 8 on noise
/// and 4:4:4, 11 to 15 on testorig (4:2:0), 18 and 22 on the saturated reds of Landscape_1.
@Suite("Raw-plane thumbnails match the RGB-resampled path")
struct RawThumbnailTests {
    let coder = JPEGCoder()

    /// The previous path: RGB at `numerator`/8 (merged upsampling at 8/8, libjpeg's default below),
    /// then the area resampler.
    private func reference(_ data: Data, target: PixelSize, numerator: Int) throws -> [UInt8] {
        let handle = try JPEGDecoderHandle(pluginName: "t")
        return try data.withUnsafeBytes { bytes in
            handle.setSource(bytes)
            _ = try handle.readHeader()
            handle.setFastUpsampling(numerator == 8)
            let output = try handle.start(numerator: numerator, buffered: false)
            #expect(output.channels == 3)
            var pixels = [UInt8](repeating: 0, count: output.width * output.height * 3)
            try pixels.withUnsafeMutableBytes { try handle.readPixels(into: $0, bytesPerRow: output.width * 3) }
            return pixels.withUnsafeBytes {
                AreaResampler.downscale($0, width: output.width, height: output.height, bytesPerRow: output.width * 3, channels: 3, to: target)
            }
        }
    }

    private func compare(_ data: Data, box: PixelSize, label: String, numerator: Int = 8) throws {
        let handle = try JPEGDecoderHandle(pluginName: "t")
        let eligible = try data.withUnsafeBytes { bytes in
            handle.setSource(bytes)
            _ = try handle.readHeader()
            return handle.rawEligible(numerator: numerator)
        }
        #expect(eligible, "\(label) should take the raw path")
        let image = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: box))
        let target = PixelSize(width: image.width, height: image.height)
        let expected = try reference(data, target: target, numerator: numerator)
        #expect(image.pixelFormat == .rgb8 && image.pixels.count == expected.count)
        var total = 0
        var largest = 0
        for (a, b) in zip(image.pixels, expected) {
            let d = abs(Int(a) - Int(b))
            total += d
            largest = max(largest, d)
        }
        let mean = Double(total) / Double(expected.count)
        #expect(mean < 0.75, "\(label) \(target): mean abs difference \(mean)")
        #expect(largest < 32, "\(label) \(target): largest difference \(largest)")
    }

    @Test("real photos (4:2:0, 4:4:4 re-encodes, progressive) within tolerance", arguments: [150, 200, 226])
    func photos(side: Int) throws {
        let box = PixelSize(width: side, height: side)
        for name in ["jpeg/libjpeg-turbo/testorig.jpg", "jpeg/derived/testorig-progressive.jpg", "jpeg/derived/testorig-restart1-optimized.jpg"] {
            try compare(try TestData.data(name), box: box, label: name)
        }
        let photo = try coder.decode(try TestData.data("jpeg/libjpeg-turbo/testorig.jpg"), options: DecodeOptions())
        let s444 = try coder.encode(photo, as: .jpeg, options: EncodeOptions(quality: 0.9, chromaSubsampling444: true))
        try compare(s444, box: box, label: "4:4:4")
    }

    @Test("a large photo into boxes that need 8/8", arguments: [1000, 1500])
    func largePhoto(side: Int) throws {
        try compare(try TestData.data("exif-orientation/recurser/Landscape_1.jpg"), box: PixelSize(width: side, height: side), label: "Landscape_1")
    }

    /// At 4/8 the reference upsamples chroma with libjpeg's triangle filter (djpeg's default), the
    /// raw path averages the box-sampled chroma plane: a little more difference at chroma edges.
    @Test("thumbnails decoded at 4/8 take the raw path too, within the same tolerance")
    func halfScale() throws {
        try compare(try TestData.data("jpeg/libjpeg-turbo/testorig.jpg"), box: PixelSize(width: 100, height: 100), label: "testorig", numerator: 4)
        try compare(try TestData.data("exif-orientation/recurser/Landscape_1.jpg"), box: PixelSize(width: 600, height: 600), label: "Landscape_1", numerator: 4)
        try compare(try Synthetic.jpeg(width: 401, height: 299, quality: 0.95), box: PixelSize(width: 128, height: 128), label: "synthetic", numerator: 4)
        let plan = try JPEGScalePlan.make(
            header: JPEGHeader(width: 227, height: 149), options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100)),
            plugin: "t", scaledSize: { n in ((227 * n + 7) / 8, (149 * n + 7) / 8) })
        #expect(plan.numerator == 4)
    }

    @Test("noise at 4:2:0: odd sizes, every sample differs from its neighbours")
    func noise() throws {
        for (w, h, box) in [(97, 61, 60), (401, 299, 256), (33, 17, 30)] {
            try compare(try Synthetic.jpeg(width: w, height: h, quality: 0.95), box: PixelSize(width: box, height: box), label: "synthetic \(w)x\(h)")
        }
    }

    @Test("gray and CMYK files keep the RGB-resampled path")
    func ineligible() throws {
        for name in ["jpeg/derived/testorig-grayscale.jpg", "jpeg/pillow/pil_sample_cmyk.jpg"] {
            let data = try TestData.data(name)
            let handle = try JPEGDecoderHandle(pluginName: "t")
            let eligible = try data.withUnsafeBytes { bytes in
                handle.setSource(bytes)
                _ = try handle.readHeader()
                return handle.rawEligible(numerator: 8)
            }
            #expect(!eligible, "\(name)")
        }
    }

    @Test("a truncated file fails the raw path as it fails a full decode")
    func truncated() throws {
        let data = try TestData.data("jpeg/derived/testorig-progressive.jpg")
        let cut = data.prefix(data.count / 2)
        #expect(throws: ImageKernelError.self) { try coder.decode(cut, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 200, height: 200))) }
    }
}
