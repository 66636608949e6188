@testable import CoderJPEG
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

@Suite("Thumbnail decoding uses DCT scaling and never materialises full-size pixels")
struct ThumbnailTests {
    let coder = JPEGCoder()

    @Test("the plan picks the smallest fast N/8 (1, 2, 4 or 8) still at least the thumbnail, then shrinks to it exactly")
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

    /// 3/8, 5/8, 6/8 and 7/8 run libjpeg-turbo's plain-C paths and cost more than the next fast
    /// scale above them, so a thumbnail never uses them.
    @Test("typical thumbnails decode at a fast scale only", arguments: [
        (400, 300, 32, 1), (400, 300, 64, 2), (400, 300, 128, 4), (400, 300, 200, 4), (400, 300, 256, 8),
        (6000, 4000, 32, 1), (6000, 4000, 256, 1), (6000, 4000, 400, 1), (6000, 4000, 1000, 2), (6000, 4000, 2000, 4),
        (1800, 1200, 700, 4), (1800, 1200, 1000, 8),
    ])
    func thumbnailsUseFastScales(width: Int, height: Int, side: Int, numerator: Int) throws {
        let box = PixelSize(width: side, height: side)
        let plan = try JPEGScalePlan.make(
            header: JPEGHeader(width: width, height: height), options: DecodeOptions(thumbnailPixelSize: box), plugin: "t",
            scaledSize: { n in ((width * n + 7) / 8, (height * n + 7) / 8) })
        #expect(JPEGScalePlan.fastNumerators.contains(plan.numerator))
        #expect(plan.numerator == numerator)
        let thumbnail = PixelSize.thumbnail(of: PixelSize(width: width, height: height), fitting: box)
        let output = PixelSize(width: (width * plan.numerator + 7) / 8, height: (height * plan.numerator + 7) / 8)
        #expect(plan.finalSize ?? output == thumbnail)
    }

    @Test("a thumbnail has exactly the kernel's thumbnail size", arguments: [8, 16, 29, 50, 57, 100, 113, 150, 200, 226])
    func thumbnailSizeIsExact(side: Int) throws {
        let data = try TestData.data("jpeg/libjpeg-turbo/testorig.jpg")  // 227x149
        for box in [PixelSize(width: side, height: side), PixelSize(width: side, height: 1000), PixelSize(width: 1000, height: side)] {
            let image = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: box))
            let expected = PixelSize.thumbnail(of: PixelSize(width: 227, height: 149), fitting: box)
            #expect(image.width == expected.width && image.height == expected.height, "box \(box)")
        }
    }

    @Test("a box with a side of zero or less decodes at full size", arguments: [(0, 0), (0, 100), (100, 0), (-5, 50)])
    func emptyBoxMeansFullSize(width: Int, height: Int) throws {
        let data = try TestData.data("jpeg/libjpeg-turbo/testorig.jpg")
        let full = try coder.decode(data, options: DecodeOptions())
        let image = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: width, height: height)))
        #expect(image.width == 227 && image.height == 149)
        #expect(image.pixels == full.pixels)
        let progressive = coder.makeProgressiveDecoder(options: DecodeOptions(thumbnailPixelSize: PixelSize(width: width, height: height)))
        let final = try #require(try progressive.append(data))
        #expect(final.width == 227 && final.height == 149 && final.pixels == full.pixels)
    }

    @Test("a full-size decode keeps djpeg's pixels; only a downscaled one uses the cheaper upsampling")
    func fastUpsamplingOnlyWhenShrinking() throws {
        let header = JPEGHeader(width: 400, height: 300)
        let size = { (n: Int) in ((400 * n + 7) / 8, (300 * n + 7) / 8) }
        let full = try JPEGScalePlan.make(header: header, options: DecodeOptions(), plugin: "t", scaledSize: size)
        #expect(!full.usesFastUpsampling)
        let box = try JPEGScalePlan.make(
            header: header, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 400, height: 400)), plugin: "t", scaledSize: size)
        #expect(box == JPEGScalePlan(numerator: 8, finalSize: nil) && !box.usesFastUpsampling)
        let shrink = try JPEGScalePlan.make(
            header: header, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256)), plugin: "t", scaledSize: size)
        #expect(shrink == JPEGScalePlan(numerator: 8, finalSize: PixelSize(width: 256, height: 192)) && shrink.usesFastUpsampling)
    }

    @Test("the area resampler gives the same bytes whether rows come one at a time or all at once")
    func resamplerStreamsExactly() throws {
        let image = try Synthetic.rgbImage(width: 97, height: 61)
        let target = PixelSize(width: 50, height: 33)
        let whole = image.pixels.withUnsafeBytes { bytes in
            AreaResampler.downscale(bytes, width: 97, height: 61, bytesPerRow: image.bytesPerRow, channels: 3, to: target)
        }
        let resampler = AreaResampler(sourceWidth: 97, sourceHeight: 61, channels: 3, to: target)
        image.pixels.withUnsafeBytes { bytes in
            var row = 0
            for count in [1, 3, 16, 7, 16, 16, 2] {
                resampler.consume(UnsafeRawBufferPointer(rebasing: bytes[(row * image.bytesPerRow)...]), rows: count, bytesPerRow: image.bytesPerRow)
                row += count
            }
        }
        #expect(resampler.isComplete)
        #expect(resampler.finish() == whole)
        // A flat image stays flat: the weights of every output pixel sum to 1.
        let flat = [UInt8](repeating: 200, count: 97 * 61)
        let shrunk = flat.withUnsafeBytes { AreaResampler.downscale($0, width: 97, height: 61, bytesPerRow: 97, channels: 1, to: target) }
        #expect(shrunk.allSatisfy { $0 == 200 })
    }

    /// The fixed-point resampler against an exact area average in `Double`, on noise (every
    /// sample differs from its neighbours, so a misweighted tap shows).
    @Test("the area resampler is within 1 per sample of an exact area average", arguments: [
        (400, 300, 256, 192, 3), (200, 150, 128, 96, 3), (97, 61, 50, 33, 3), (750, 500, 32, 21, 3),
        (97, 61, 50, 33, 1), (64, 48, 17, 13, 4), (31, 17, 30, 16, 2), (9, 9, 9, 9, 3), (40, 30, 1, 1, 3),
    ])
    func resamplerMatchesExactAreaAverage(width: Int, height: Int, targetWidth: Int, targetHeight: Int, channels: Int) throws {
        var state: UInt32 = 12345
        let source = (0..<width * height * channels).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        let target = PixelSize(width: targetWidth, height: targetHeight)
        let shrunk = source.withUnsafeBytes {
            AreaResampler.downscale($0, width: width, height: height, bytesPerRow: width * channels, channels: channels, to: target)
        }
        let (rx, ry) = (Double(width) / Double(targetWidth), Double(height) / Double(targetHeight))
        func overlap(_ s: Int, _ low: Double, _ high: Double) -> Double { max(0, min(Double(s + 1), high) - max(Double(s), low)) }
        var worst = 0.0
        for y in 0..<targetHeight {
            let (y0, y1) = (Double(y) * ry, Double(y + 1) * ry)
            for x in 0..<targetWidth {
                let (x0, x1) = (Double(x) * rx, Double(x + 1) * rx)
                for c in 0..<channels {
                    var total = 0.0
                    for sy in Int(y0)..<min(height, Int(y1.rounded(.up))) {
                        for sx in Int(x0)..<min(width, Int(x1.rounded(.up))) {
                            total += overlap(sy, y0, y1) * overlap(sx, x0, x1) * Double(source[(sy * width + sx) * channels + c])
                        }
                    }
                    let exact = total / (rx * ry)
                    worst = max(worst, abs(exact - Double(shrunk[(y * targetWidth + x) * channels + c])))
                }
            }
        }
        #expect(worst < 1, "largest difference \(worst)")
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
        let (thumbnailPeak, fullPeak, full) = try MemoryProbe.thumbnailVersusFull(
            "CoderJPEG", thumbnail: { try coder.decode(data, options: options) },
            check: { #expect($0.width == 256 && $0.height == 171) },
            full: { try coder.decode(data, options: DecodeOptions()) })
        let fullPixelBytes = 6000 * 4000 * 3
        #expect(full.width == 6000 && full.pixels.count == fullPixelBytes)
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
