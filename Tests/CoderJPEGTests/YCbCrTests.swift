import CoderJPEG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// Y′CbCr planes in and out of libjpeg without colour conversion (`decodeYCbCr`, `encode(_:options:)`).
@Suite("Y′CbCr planes")
struct YCbCrTests {
    static let landscape = "exif-orientation/recurser/Landscape_0.jpg"  // 1800x1200, 4:2:0, upright

    @Test func planesOfA420FileRoundTripThroughTheEncoder() throws {
        let data = try TestData.data(Self.landscape)
        let planes = try #require(try JPEGCoder().decodeYCbCr(data, options: DecodeOptions()))
        #expect(planes.subsampling == .s420)
        #expect((planes.width, planes.height) == (1800, 1200))
        #expect((planes.blueDifference.width, planes.blueDifference.height) == (900, 600))
        #expect((planes.redDifference.width, planes.redDifference.height) == (900, 600))
        #expect(planes.luma.bytesPerRow >= 1800)
        let reencoded = try JPEGCoder().encode(planes, options: EncodeOptions(quality: 0.95))
        let original = try JPEGCoder().decode(data, options: DecodeOptions())
        let roundTrip = try JPEGCoder().decode(reencoded, options: DecodeOptions())
        #expect((roundTrip.width, roundTrip.height) == (1800, 1200))
        let difference = Synthetic.meanAbsoluteDifference(original, roundTrip)
        #expect(difference < 2, "mean difference \(difference)")
    }

    @Test func aReducedScaleMayPutTheChromaOnTheLumaGrid() throws {
        let data = try TestData.data(Self.landscape)
        let options = DecodeOptions(shrinkOnLoad: ShrinkOnLoad(width: 300, height: 200, mode: .fill))
        let planes = try #require(try JPEGCoder().decodeYCbCr(data, options: options))
        // 2/8 is the smallest fast scale that still covers 300x200: 450x300, chroma decoded at 4/8 of its grid.
        #expect((planes.width, planes.height) == (450, 300))
        #expect(planes.subsampling == .none)
        #expect((planes.blueDifference.width, planes.blueDifference.height) == (450, 300))
        let rgb = try JPEGCoder().decode(data, options: options)
        let back = try JPEGCoder().decode(try JPEGCoder().encode(planes, options: EncodeOptions(quality: 0.95)), options: DecodeOptions())
        #expect(Synthetic.meanAbsoluteDifference(rgb, back) < 2.5)
    }

    @Test func whatThePlanesCannotStandForIsNil() throws {
        let coder = JPEGCoder()
        #expect(try coder.decodeYCbCr(TestData.data("jpeg/derived/testorig-grayscale.jpg"), options: DecodeOptions()) == nil)
        #expect(try coder.decodeYCbCr(TestData.data("jpeg/mozilla/jpg-cmyk-2.jpg"), options: DecodeOptions()) == nil)
        #expect(try coder.decodeYCbCr(TestData.data("exif-orientation/recurser/Landscape_6.jpg"), options: DecodeOptions()) == nil)
        var thumbnail = DecodeOptions()
        thumbnail.thumbnailPixelSize = PixelSize(width: 100, height: 100)
        #expect(try coder.decodeYCbCr(TestData.data(Self.landscape), options: thumbnail) == nil)
    }

    @Test func brokenAndOversizedInputThrowsTypedErrors() throws {
        let data = try TestData.data(Self.landscape)
        #expect(throws: ImageKernelError.self) { try JPEGCoder().decodeYCbCr(Data(), options: DecodeOptions()) }
        do {
            _ = try JPEGCoder().decodeYCbCr(data.prefix(data.count / 2), options: DecodeOptions())
            Issue.record("a truncated file decoded")
        } catch {
            #expect(error.code == .truncated)
        }
        do {
            _ = try JPEGCoder().decodeYCbCr(data, options: DecodeOptions(pixelLimit: 1000))
            Issue.record("the pixel limit was not applied")
        } catch {
            #expect(error.code == .pixelLimitExceeded)
        }
    }

    @Test func planesThatDoNotFitTheirSamplingAreRefused() throws {
        let luma = try Image(width: 5, height: 3, pixelFormat: .gray8, pixels: [UInt8](repeating: 1, count: 15))
        let chroma = try Image(width: 3, height: 2, pixelFormat: .gray8, pixels: [UInt8](repeating: 1, count: 6))
        #expect(try YCbCrImage(luma: luma, blueDifference: chroma, redDifference: chroma, subsampling: .s420).width == 5)
        #expect(throws: ImageKernelError.self) {
            try YCbCrImage(luma: luma, blueDifference: chroma, redDifference: chroma, subsampling: .none)
        }
        let rgb = try Image(width: 3, height: 2, pixelFormat: .rgb8, pixels: [UInt8](repeating: 1, count: 18))
        #expect(throws: ImageKernelError.self) {
            try YCbCrImage(luma: luma, blueDifference: rgb, redDifference: chroma, subsampling: .s420)
        }
        #expect(YCbCrImage.Subsampling(horizontal: 3, vertical: 1) == nil)
    }
}
