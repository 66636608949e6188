import AnimationReference
import CoderJXL
import CoderPNG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("JPEG XL animations, colour and orientation")
struct AnimationTests {
    let coder = JXLCoder()

    /// libjxl's testdata gives every frame of this blended animation as a PNG.
    @Test func everyFrameMatchesLibjxlsExpectedFrames() throws {
        let image = try coder.decode(TestData.data("jxl/libjxl-testdata/cropped_traffic_light.jxl"), options: DecodeOptions())
        #expect(image.frameCount == 4 && image.loopCount != nil)
        for (index, frame) in image.allFrames.enumerated() {
            let png = try PNGCoder().decode(
                TestData.data("jxl/libjxl-testdata/cropped_traffic_light_frame-\(index).png"), options: DecodeOptions())
            #expect(frame.image.rgba8Pixels() == png.rgba8Pixels(), "frame \(index)")
        }
    }

    @Test func durationsAndLoopCountComeFromTheHeaders() throws {
        let image = try coder.decode(TestData.data("jxl/conformance/animation_icos4d.jxl"), options: DecodeOptions())
        #expect(image.frameCount == 48 && image.isAnimated)
        // test.json: 48 frames; jxlinfo shows ticks of 1/30 s... every frame lasts the same, forever.
        let durations = image.allFrames.map(\.duration)
        #expect(durations.allSatisfy { $0 > 0 && abs($0 - durations[0]) < 1e-9 })
        #expect(image.loopCount == 0)
        #expect(image.allFrames.allSatisfy { $0.image.width == 128 && $0.image.height == 128 && $0.image.pixelFormat == .rgba8 })
        let first = try coder.decode(TestData.data("jxl/conformance/animation_icos4d.jxl"), options: DecodeOptions(firstFrameOnly: true))
        #expect(first.frameCount == 1 && first.pixels == image.pixels)
    }

    @Test func orientationIsReportedNotApplied() throws {
        let image = try coder.decode(TestData.data("jxl/conformance/sunset_logo.jxl"), options: DecodeOptions())
        #expect(image.orientation == .rightMirrored)
        // Stored 1386x924; shown (table) 924x1386.
        #expect(image.width == 1386 && image.height == 924)
        let brg = try coder.decode(TestData.data("jxl/conformance/bench_oriented_brg.jxl"), options: DecodeOptions())
        #expect(brg.orientation == .leftMirrored && brg.width == 500 && brg.height == 606)
    }

    @Test func colourIsCICPWhenEncodedAndICCOtherwise() throws {
        let srgb = try coder.decode(TestData.data("jxl/conformance/bicycles.jxl"), options: DecodeOptions())
        #expect(srgb.cicp == .sRGB && srgb.iccProfile == nil)
        let pq = try coder.decode(TestData.data("jxl/libjxl-testdata/pq_gradient.jxl"), options: DecodeOptions())
        #expect(pq.cicp?.transferCharacteristics == 16)
        let linear = try coder.decode(TestData.data("jxl/conformance/grayscale.jxl"), options: DecodeOptions())
        #expect(linear.cicp?.transferCharacteristics == 8 && linear.pixelFormat == .gray8)
        // An ICC profile stored in the file comes back as it is (a valid ICC header: 'acsp' at 36).
        let icc = try #require(try coder.decode(TestData.data("jxl/conformance/lz77_flower.jxl"), options: DecodeOptions()).iccProfile)
        #expect(icc.count > 128 && Array(icc[36..<40]) == Array("acsp".utf8) && icc.count == Int(UInt32(bigEndian: icc.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })))
    }

    @Test func sixteenBitSamplesOnlyWhenAsked() throws {
        let data = try TestData.data("jxl/conformance/alpha_triangles.jxl")
        #expect(try coder.decode(data, options: DecodeOptions()).pixelFormat == .rgba8)
        #expect(try coder.decode(data, options: DecodeOptions(preserve16Bit: true)).pixelFormat == .rgba16)
        // 8-bit files stay 8-bit.
        #expect(try coder.decode(TestData.data("jxl/conformance/bicycles.jxl"), options: DecodeOptions(preserve16Bit: true)).pixelFormat == .rgb8)
    }

    @Test func thumbnailsEqualTheKernelsAreaAverageOfTheFullDecode() throws {
        for path in ["jxl/conformance/bicycles.jxl", "jxl/conformance/alpha_triangles.jxl", "jxl/conformance/grayscale.jxl"] {
            let data = try TestData.data(path)
            let full = try coder.decode(data, options: DecodeOptions())
            let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100)))
            let size = PixelSize.thumbnail(of: PixelSize(width: full.width, height: full.height), fitting: PixelSize(width: 100, height: 100))
            #expect(thumbnail.width == size.width && thumbnail.height == size.height, "\(path)")
            #expect(thumbnail.pixels == (try full.areaDownscaled(to: size)).pixels, "\(path)")
            #expect(thumbnail.decoderNotes[Image.MetadataKey.thumbnailSource] == "downscaled")
        }
        // Every frame of an animation is reduced.
        let animation = try coder.decode(
            TestData.data("jxl/libjxl-testdata/cropped_traffic_light.jxl"), options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 20, height: 20)))
        #expect(animation.frameCount == 4 && animation.allFrames.allSatisfy { $0.image.width == 13 && $0.image.height == 20 })
    }

    /// libjxl 0.7 renders at full size only: scaling down would save nothing, so it is refused.
    @Test func imagesOverThePixelLimitAreRefusedEvenWhenScalingDown() throws {
        let data = try TestData.data("jxl/conformance/bicycles.jxl")  // 1024x631
        for scaleDown in [false, true] {
            let refused = #expect(throws: ImageKernelError.self) {
                try coder.decode(data, options: DecodeOptions(pixelLimit: 200_000, scaleDownLargeImages: scaleDown))
            }
            #expect(refused?.code == .pixelLimitExceeded)
        }
        #expect(try coder.decode(data, options: DecodeOptions(pixelLimit: 1024 * 631)).width == 1024)
    }
}
