@testable import CoderJPEG
import Foundation
import TestData
import ImageKernel
import Testing

@Suite("Thumbnail decoding uses DCT scaling and never materialises full-size pixels")
struct ThumbnailTests {
    let coder = JPEGCoder()

    @Test("the plan picks the smallest N/8 still at least the thumbnail, then shrinks to it exactly")
    func planPicksSmallestCoveringScale() throws {
        let data = try TestData.data("jpeg/libjpeg-turbo/testorig.jpg")  // 227x149
        let image = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 50)))
        // Fit 227x149 in 50x50: 50x33. 2/8 gives 57x38 (large enough), 1/8 gives 29x19 (too small).
        #expect(image.width == 50 && image.height == 33)
        let header = JPEGHeader(width: 227, height: 149)
        let plan = try JPEGScalePlan.make(
            header: header, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 50)), plugin: "t",
            scaledSize: { n in ((227 * n + 7) / 8, (149 * n + 7) / 8) })
        #expect(plan == JPEGScalePlan(numerator: 2, finalSize: PixelSize(width: 50, height: 33)))
        // A box that 1/8 already matches exactly needs no final shrink.
        let exact = try JPEGScalePlan.make(
            header: JPEGHeader(width: 800, height: 600), options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100)),
            plugin: "t", scaledSize: { n in ((800 * n + 7) / 8, (600 * n + 7) / 8) })
        #expect(exact == JPEGScalePlan(numerator: 1, finalSize: nil))
    }

    @Test("a thumbnail larger than the image decodes the image at full size")
    func noUpscaling() throws {
        let data = try TestData.data("jpeg/libjpeg-turbo/testorig.jpg")
        let image = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 1000, height: 1000)))
        #expect(image.width == 227 && image.height == 149)
    }

    @Test("a thumbnail shows the same picture as the full image shrunk")
    func thumbnailMatchesShrunkFullImage() throws {
        let data = try TestData.data("exif-orientation/recurser/Landscape_1.jpg")  // 1800x1200
        let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 200, height: 200)))
        #expect(thumbnail.width == 200 && thumbnail.height == 133)
        #expect(thumbnail.orientation == .up && thumbnail.sourceFormat == .jpeg)
        let full = try coder.decode(data, options: DecodeOptions())
        let shrunk = try full.pixels.withUnsafeBytes { bytes in
            try Image(
                width: 200, height: 133, pixelFormat: .rgb8,
                pixels: AreaResampler.downscale(bytes, width: 1800, height: 1200, bytesPerRow: 1800 * 3, channels: 3, to: PixelSize(width: 200, height: 133)))
        }
        let difference = Synthetic.meanAbsoluteDifference(thumbnail, shrunk)
        #expect(difference < 4, "mean absolute difference \(difference)")
    }

    @Test("gray and CMYK files give thumbnails in their output formats")
    func thumbnailFormats() throws {
        let gray = try coder.decode(TestData.data("jpeg/derived/testorig-grayscale.jpg"), options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 30, height: 30)))
        #expect(gray.pixelFormat == .gray8 && gray.width == 30 && gray.height == 20)
        let cmyk = try coder.decode(TestData.data("jpeg/pillow/pil_sample_cmyk.jpg"), options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 25, height: 25)))
        #expect(cmyk.pixelFormat == .rgb8 && cmyk.width == 25 && cmyk.height == 25)
    }

    /// The peak-memory claim, measured: a 6000x4000 JPEG (made here by the encoder) decoded to a
    /// 256 px thumbnail versus decoded in full, by the process's peak resident-set growth.
    @Test(
        "a thumbnail of a 24-megapixel JPEG peaks far below the full decode's memory",
        .disabled(if: MemoryProbe.underSanitizer, "resident-set figures are meaningless under a sanitizer"))
    func thumbnailPeakMemoryIsFarBelowFullDecode() throws {
        let data = try Synthetic.jpeg(width: 6000, height: 4000)
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        var thumbnailPeaks: [Int] = []
        for _ in 0..<3 {
            let (thumbnail, bytes) = try MemoryProbe.peakGrowth { try coder.decode(data, options: options) }
            #expect(thumbnail.width == 256 && thumbnail.height == 171)
            thumbnailPeaks.append(bytes)
        }
        let (full, fullPeak) = try MemoryProbe.peakGrowth { try coder.decode(data, options: DecodeOptions()) }
        let fullPixelBytes = 6000 * 4000 * 3
        #expect(full.width == 6000 && full.pixels.count == fullPixelBytes)
        let thumbnailPeak = thumbnailPeaks.sorted()[1]
        print("CoderJPEG memory: full decode peak RSS growth \(fullPeak / 1024) KiB; 256px thumbnail \(thumbnailPeaks.map { $0 / 1024 }) KiB (median \(thumbnailPeak / 1024) KiB)")
        // The probe must see the full buffer, or its small figure for the thumbnail means nothing.
        #expect(fullPeak >= fullPixelBytes * 9 / 10, "the probe saw only \(fullPeak) bytes for a \(fullPixelBytes)-byte decode")
        // Far below: under a sixteenth of the full decode's peak (about 4.4 MB of 70 MB here; the
        // thumbnail's own buffers are about 2.7 MB).
        #expect(thumbnailPeak <= fullPeak / 16, "thumbnail peak \(thumbnailPeak) bytes vs full \(fullPeak) bytes")
    }
}

extension JPEGHeader {
    /// A baseline RGB header of the given size, for plan tests.
    init(width: Int, height: Int) {
        self.init(
            width: width, height: height, components: 3, colorSpace: .yCbCr, isProgressive: false,
            hasMultipleScans: false, isArithmetic: false, isAdobeInverted: false)
    }
}
