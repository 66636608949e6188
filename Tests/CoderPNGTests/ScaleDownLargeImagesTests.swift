import CoderPNG
import Foundation
import ImageKernel
import Testing

@Suite("scaleDownLargeImages: over the pixel limit, delivered scaled down row by row")
struct ScaleDownLargeImagesTests {
    let coder = PNGCoder()

    /// A smooth 2000×1500 RGB gradient with noise, encoded fast.
    static let large: (image: Image, data: Data) = {
        let image = try! makeImage(width: 2000, height: 1500, format: .rgb8, seed: 11)
        return (image, try! PNGCoder().encode(image, as: .png, options: EncodeOptions(compressionLevel: 1)))
    }()

    @Test func overTheLimitIsDeliveredScaledDownToFitIt() throws {
        let options = DecodeOptions(pixelLimit: 1_000_000, scaleDownLargeImages: true)
        let image = try coder.decode(Self.large.data, options: options)
        #expect(image.width * image.height <= 1_000_000)
        #expect(image.width == 1154 && image.height == 866, "the largest size of that aspect: \(image.width)x\(image.height)")
        #expect(abs(Double(image.width) / Double(image.height) - 2000.0 / 1500) < 0.005)
        #expect(image.pixelFormat == .rgb8 && image.sourceFormat == .png)
        let reference = referenceBoxAverage(Self.large.image, width: image.width, height: image.height)
        #expect(maximumDifference(image.pixels, reference) <= 1)
    }

    @Test func withoutTheOptionItIsRefusedFromTheHeader() throws {
        let error = kernelError { () throws(ImageKernelError) in
            try coder.decode(Self.large.data, options: DecodeOptions(pixelLimit: 1_000_000))
        }
        #expect(error?.code == .pixelLimitExceeded && error?.plugin == "CoderPNG")
    }

    @Test func aThumbnailThatFitsTheLimitWins() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 200, height: 200), pixelLimit: 1_000_000, scaleDownLargeImages: true)
        let image = try coder.decode(Self.large.data, options: options)
        #expect(image.width == 200 && image.height == 150)
        // A thumbnail box larger than the limit allows is cut to the limit.
        let big = DecodeOptions(thumbnailPixelSize: PixelSize(width: 1900, height: 1900), pixelLimit: 1_000_000, scaleDownLargeImages: true)
        let limited = try coder.decode(Self.large.data, options: big)
        #expect(limited.width == 1154 && limited.height == 866)
    }

    @Test func underTheLimitTheOptionChangesNothing() throws {
        let data = try coder.encode(try makeImage(width: 300, height: 200, format: .rgba8), as: .png, options: EncodeOptions())
        let plain = try coder.decode(data, options: DecodeOptions())
        #expect(try coder.decode(data, options: DecodeOptions(pixelLimit: 60_000, scaleDownLargeImages: true)) == plain)
    }

    @Test func smallLimitsAndThinImagesStillFit() throws {
        let data = try coder.encode(try makeImage(width: 300, height: 200, format: .grayAlpha16), as: .png, options: EncodeOptions())
        for limit in [300, 599, 1000, 60_000 - 1] {
            // The ceiling raised to the source: these limits are far below a quarter of it.
            let options = DecodeOptions(pixelLimit: limit, preserve16Bit: true, scaleDownLargeImages: true, scaleDownSourcePixelLimit: 60_000)
            let image = try coder.decode(data, options: options)
            #expect(image.width * image.height <= limit && image.width >= 1 && image.height >= 1, "limit \(limit)")
            #expect(image.pixelFormat == .grayAlpha16)
        }
        let strip = try coder.encode(try makeImage(width: 900, height: 2, format: .gray8), as: .png, options: EncodeOptions())
        let image = try coder.decode(strip, options: DecodeOptions(pixelLimit: 1000, scaleDownLargeImages: true))
        #expect(image.width * image.height <= 1000 && image.width >= 450)
    }

    @Test func aSideLongerThanTheLimitIsRefusedEvenWhenScalingDown() throws {
        // A row must fit within the limit: the row-by-row path holds whole source rows.
        let data = try coder.encode(try makeImage(width: 300, height: 200, format: .rgb8), as: .png, options: EncodeOptions())
        let error = kernelError { () throws(ImageKernelError) in
            try coder.decode(data, options: DecodeOptions(pixelLimit: 250, scaleDownLargeImages: true))
        }
        #expect(error?.code == .pixelLimitExceeded)
    }

    @Test func anInterlacedFileOverTheLimitIsRefusedBecauseAdam7NeedsTheFullBuffer() throws {
        let data = try coder.encode(try makeImage(width: 300, height: 200, format: .rgb8), as: .png, options: EncodeOptions(progressive: true))
        let error = kernelError { () throws(ImageKernelError) in
            try coder.decode(data, options: DecodeOptions(pixelLimit: 10_000, scaleDownLargeImages: true, scaleDownSourcePixelLimit: 60_000))
        }
        #expect(error?.code == .pixelLimitExceeded)
        #expect(error?.message.contains("interlaced") == true)
    }

    // MARK: The ceiling on the source of a scale-down

    @Test func aHeaderOf100000x100000IsRefusedFromTheHeaderEvenWhenScalingDown() throws {
        // 10^10 pixels: far over the default ceiling of 4 × 256 megapixels. The file holds no
        // rows at all, so anything but pixelLimitExceeded means the decode went past IHDR.
        let data = pngDeclaring(width: 100_000, height: 100_000)
        let error = kernelError { () throws(ImageKernelError) in
            try coder.decode(data, options: DecodeOptions(scaleDownLargeImages: true))
        }
        #expect(error?.code == .pixelLimitExceeded && error?.plugin == "CoderPNG")
        #expect(error?.message.contains("ceiling") == true, "\(error?.message ?? "")")
    }

    @Test func theDefaultCeilingIsFourTimesThePixelLimit() {
        #expect(DecodeOptions().effectiveScaleDownSourcePixelLimit == 1_024_000_000)
        #expect(DecodeOptions(pixelLimit: 10_000).effectiveScaleDownSourcePixelLimit == 40_000)
        #expect(DecodeOptions(pixelLimit: .max).effectiveScaleDownSourcePixelLimit == .max)
        #expect(DecodeOptions(pixelLimit: 10_000, scaleDownSourcePixelLimit: 12_345).effectiveScaleDownSourcePixelLimit == 12_345)
    }

    @Test func aSourceJustWithinTheDefaultCeilingStillScalesDown() throws {
        // Pixel limit 10,000: the default ceiling is 40,000 source pixels, exactly 200×200.
        let source = try makeImage(width: 200, height: 200, format: .rgb8, seed: 5)
        let data = try coder.encode(source, as: .png, options: EncodeOptions(compressionLevel: 1))
        let image = try coder.decode(data, options: DecodeOptions(pixelLimit: 10_000, scaleDownLargeImages: true))
        #expect(image.width == 100 && image.height == 100)
        #expect(maximumDifference(image.pixels, referenceBoxAverage(source, width: 100, height: 100)) <= 1)
        // One row more is over it, and refused before any row is read.
        let taller = try coder.encode(try makeImage(width: 200, height: 201, format: .rgb8), as: .png, options: EncodeOptions(compressionLevel: 1))
        let error = kernelError { () throws(ImageKernelError) in
            try coder.decode(taller, options: DecodeOptions(pixelLimit: 10_000, scaleDownLargeImages: true))
        }
        #expect(error?.code == .pixelLimitExceeded)
    }

    @Test func theCeilingIsSetInTheOptions() throws {
        let data = try coder.encode(try makeImage(width: 200, height: 201, format: .rgb8), as: .png, options: EncodeOptions(compressionLevel: 1))
        let raised = DecodeOptions(pixelLimit: 10_000, scaleDownLargeImages: true, scaleDownSourcePixelLimit: 40_200)
        let image = try coder.decode(data, options: raised)
        #expect(image.width * image.height <= 10_000 && image.width >= 99)
        var lowered = raised
        lowered.scaleDownSourcePixelLimit = 10_000  // at the pixel limit: scaling down is off
        #expect(kernelError { () throws(ImageKernelError) in try coder.decode(data, options: lowered) }?.code == .pixelLimitExceeded)
    }
}
