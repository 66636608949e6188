@testable import CoderJPEG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("Shrink on load: the smallest fast DCT scale that keeps every pixel the resize needs")
struct ShrinkOnLoadTests {
    let coder = JPEGCoder()

    func plan(_ width: Int, _ height: Int, _ shrink: ShrinkOnLoad, orientation: ExifOrientation = .up) throws -> JPEGScalePlan {
        try JPEGScalePlan.make(
            header: JPEGHeader(width: width, height: height), options: DecodeOptions(shrinkOnLoad: shrink), plugin: "t", orientation: orientation,
            scaledSize: { n in ((width * n + 7) / 8, (height * n + 7) / 8) })
    }

    @Test("fill needs both sides, fit one; nothing is resampled in the decoder")
    func planPicksTheSmallestSufficientScale() throws {
        #expect(try plan(4000, 3000, ShrinkOnLoad(width: 300, height: 200, mode: .fill)) == JPEGScalePlan(numerator: 1, finalSize: nil, shrinkFollows: true))
        // 1/8 is 500x375, short of 600x500; 2/8 is 1000x750.
        #expect(try plan(4000, 3000, ShrinkOnLoad(width: 600, height: 500, mode: .fill)).numerator == 2)
        // Fit 600x500 in display: 1/8's 500 wide would fall short on both sides, 2/8 reaches both.
        #expect(try plan(4000, 3000, ShrinkOnLoad(width: 600, height: 500, mode: .fit)).numerator == 2)
        // Fit 300x2000 (a tall box): 1/8's width 500 reaches 300, which sets the fit's scale.
        #expect(try plan(4000, 3000, ShrinkOnLoad(width: 300, height: 2000, mode: .fit)).numerator == 1)
        #expect(try plan(4000, 3000, ShrinkOnLoad(width: 300, height: 2000, mode: .fill)).numerator == 8)
        // 400x300 to cover 300x225: 4/8 (200x150) is too small, so full scale, with the resize after it.
        let full = try plan(400, 300, ShrinkOnLoad(width: 300, height: 225, mode: .fill))
        #expect(full == JPEGScalePlan(numerator: 8, finalSize: nil, shrinkFollows: true) && full.usesFastUpsampling)
        // Nothing to shrink: exactly the size, or smaller than the box.
        let exact = try plan(400, 300, ShrinkOnLoad(width: 400, height: 300, mode: .fill))
        #expect(exact == JPEGScalePlan(numerator: 8, finalSize: nil) && !exact.usesFastUpsampling)
        #expect(try plan(200, 100, ShrinkOnLoad(width: 300, height: 200, mode: .fill)) == JPEGScalePlan(numerator: 8, finalSize: nil))
        #expect(try plan(400, 300, ShrinkOnLoad(width: 0, height: 200, mode: .fill)) == JPEGScalePlan(numerator: 8, finalSize: nil))
        // A thumbnail size wins over the hint.
        let thumbnail = try JPEGScalePlan.make(
            header: JPEGHeader(width: 4000, height: 3000),
            options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100), shrinkOnLoad: ShrinkOnLoad(width: 3000, height: 2000, mode: .fill)),
            plugin: "t", scaledSize: { n in ((4000 * n + 7) / 8, (3000 * n + 7) / 8) })
        #expect(thumbnail == JPEGScalePlan(numerator: 1, finalSize: PixelSize(width: 100, height: 75)))
    }

    @Test("the box is in display orientation: an EXIF rotation by 90 degrees swaps its sides")
    func orientationSwapsTheBox() throws {
        // Stored 1200x1800, shown 1800x1200. To cover 400x300 shown: 2/8 is 300x450 stored, 450x300 shown.
        let fill = ShrinkOnLoad(width: 400, height: 300, mode: .fill)
        #expect(try plan(1200, 1800, fill, orientation: .right).numerator == 2)
        #expect(try plan(1200, 1800, fill, orientation: .up).numerator == 4)
        #expect(fill.isSatisfied(by: PixelSize(width: 300, height: 450), orientation: .left))
        #expect(!fill.isSatisfied(by: PixelSize(width: 300, height: 450), orientation: .down))
    }

    @Test("a real file decodes at the DCT scale, close to the full decode averaged down")
    func decodesAtTheScale() throws {
        let data = try TestData.data("jpeg/libjpeg-turbo/testorig.jpg")  // 227x149
        let shrunk = try coder.decode(data, options: DecodeOptions(shrinkOnLoad: ShrinkOnLoad(width: 50, height: 30, mode: .fill)))
        #expect(shrunk.width == 57 && shrunk.height == 38)  // 2/8
        // Each output pixel of 2/8 stands for a 4x4 block of the full decode.
        let full = try coder.decode(data, options: DecodeOptions())
        var total = 0.0
        for y in 0..<shrunk.height {
            for x in 0..<shrunk.width {
                for c in 0..<3 {
                    var sum = 0, count = 0
                    for fy in (4 * y)..<min(4 * y + 4, full.height) {
                        for fx in (4 * x)..<min(4 * x + 4, full.width) {
                            sum += Int(full.pixels[fy * full.bytesPerRow + fx * 3 + c])
                            count += 1
                        }
                    }
                    total += abs(Double(sum) / Double(count) - Double(shrunk.pixels[y * shrunk.bytesPerRow + x * 3 + c]))
                }
            }
        }
        let difference = total / Double(shrunk.width * shrunk.height * 3)
        #expect(difference < 3, "mean difference \(difference) from the full decode's 4x4 block averages")
        // The rotated photo: shown 1800x1200, so covering 400x300 takes 2/8 of the stored 1200x1800.
        let rotated = try coder.decode(
            try TestData.data("exif-orientation/recurser/Landscape_6.jpg"), options: DecodeOptions(shrinkOnLoad: ShrinkOnLoad(width: 400, height: 300, mode: .fill)))
        #expect(rotated.width == 300 && rotated.height == 450 && rotated.orientation == .right)
        // Progressive decoding follows the same plan.
        let progressive = coder.makeProgressiveDecoder(options: DecodeOptions(shrinkOnLoad: ShrinkOnLoad(width: 50, height: 30, mode: .fill)))
        let final = try #require(try progressive.append(data))
        #expect(final.width == 57 && final.height == 38 && final.pixels == shrunk.pixels)
    }
}
