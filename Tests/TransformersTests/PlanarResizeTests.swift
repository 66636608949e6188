import CoderJPEG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing
@testable import Transformers

/// `ResizeTransformer.transform(_:subsampling:)` on Y′CbCr planes: the same geometry as the RGB
/// resize, each plane on its own grid.
@Suite("Resize of Y′CbCr planes")
struct PlanarResizeTests {
    static let landscape = "exif-orientation/recurser/Landscape_0.jpg"  // 1800x1200, 4:2:0

    static func plane(_ width: Int, _ height: Int, _ value: (Int, Int) -> Int) throws -> Image {
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height { for x in 0..<width { pixels[y * width + x] = UInt8(value(x, y)) } }
        return try Image(width: width, height: height, pixelFormat: .gray8, pixels: pixels)
    }

    static func tight(_ image: Image) -> [UInt8] {
        (0..<image.height).flatMap { y in image.pixels[(y * image.bytesPerRow)..<(y * image.bytesPerRow + image.width)] }
    }

    @Test func theLumaIsResizedExactlyAsAGrayImage() throws {
        let planes = try #require(try JPEGCoder().decodeYCbCr(TestData.data(Self.landscape), options: DecodeOptions()))
        for resize in [ResizeTransformer(.fill, width: 300, height: 200), ResizeTransformer(.fit, width: 301, height: 301, filter: .bicubic)] {
            let resized = try resize.transform(planes, subsampling: .s420)
            let gray = try resize.transform(planes.luma)
            #expect((resized.width, resized.height) == (gray.width, gray.height))
            #expect(Self.tight(resized.luma) == Self.tight(gray))
            let chroma = YCbCrImage.Subsampling.s420.chromaSize(width: gray.width, height: gray.height)
            #expect((resized.blueDifference.width, resized.blueDifference.height) == (chroma.width, chroma.height))
        }
    }

    /// Linear ramps in the chroma planes come out as the ramps sampled where each output chroma
    /// sample's area lies in the source (Lanczos reproduces a linear ramp away from the edges).
    @Test func chromaIsTakenFromTheSameSourceArea() throws {
        let luma = try Self.plane(400, 300) { _, _ in 128 }
        let cb = try Self.plane(200, 150) { x, _ in 20 + x }
        let cr = try Self.plane(200, 150) { _, y in 20 + y }
        let planes = try YCbCrImage(luma: luma, blueDifference: cb, redDifference: cr, subsampling: .s420)
        // fill 300x200: scale 0.75 to 300x225, rows 16.67 ..< 283.33 of the source kept.
        let resized = try ResizeTransformer(.fill, width: 300, height: 200).transform(planes, subsampling: .s420)
        #expect((resized.blueDifference.width, resized.blueDifference.height) == (150, 100))
        let top = (300 - 200 / 0.75) / 2
        var worst = 0.0
        for k in 5..<145 {
            // Output chroma column k covers output luma 2k ..< 2k + 2, source luma (2k ..< 2k + 2) / 0.75.
            let expected = 20 + (Double(2 * k + 1) / 0.75) / 2 - 0.5
            worst = max(worst, abs(Double(resized.blueDifference.pixels[40 * resized.blueDifference.bytesPerRow + k]) - expected))
        }
        for m in 5..<95 {
            let expected = 20 + (top + Double(2 * m + 1) / 0.75) / 2 - 0.5
            worst = max(worst, abs(Double(resized.redDifference.pixels[m * resized.redDifference.bytesPerRow + 70]) - expected))
        }
        #expect(worst <= 1, "largest deviation from the ramp: \(worst)")
        #expect(Self.tight(resized.luma).allSatisfy { $0 == 128 })
    }

    @Test func jpegThroughThePlanesMatchesJPEGThroughRGB() throws {
        let data = try TestData.data(Self.landscape)
        let resize = ResizeTransformer(.fill, width: 300, height: 200)
        let options = EncodeOptions(quality: 0.9)
        let planes = try #require(try JPEGCoder().decodeYCbCr(data, options: DecodeOptions()))
        let planar = try JPEGCoder().encode(try resize.transform(planes, subsampling: .s420), options: options)
        let rgb = try JPEGCoder().encode(try resize.transform(try JPEGCoder().decode(data, options: DecodeOptions())), as: .jpeg, options: options)
        let a = try JPEGCoder().decode(planar, options: DecodeOptions()), b = try JPEGCoder().decode(rgb, options: DecodeOptions())
        #expect((a.width, a.height, a.pixelFormat) == (300, 200, .rgb8))
        var total = 0, largest = 0
        for i in 0..<a.pixels.count {
            let d = abs(Int(a.pixels[i]) - Int(b.pixels[i]))
            total += d
            largest = max(largest, d)
        }
        let mean = Double(total) / Double(a.pixels.count)
        #expect(mean < 1.5, "mean \(mean), largest \(largest)")
    }

    @Test func aChangeOfSubsamplingAloneResamplesOnlyTheChroma() throws {
        let luma = try Self.plane(64, 48) { x, y in (x * 3 + y) & 255 }
        let chroma = try Self.plane(64, 48) { _, _ in 90 }
        let full = try YCbCrImage(luma: luma, blueDifference: chroma, redDifference: chroma, subsampling: .none)
        let same = try ResizeTransformer(.fit, width: 100, height: 100).transform(full, subsampling: .none)
        #expect(Self.tight(same.luma) == Self.tight(luma))
        let halved = try ResizeTransformer(.fit, width: 100, height: 100).transform(full, subsampling: .s420)
        #expect(Self.tight(halved.luma) == Self.tight(luma))
        #expect((halved.blueDifference.width, halved.blueDifference.height) == (32, 24))
        #expect(Self.tight(halved.redDifference).allSatisfy { $0 == 90 })
    }
}
