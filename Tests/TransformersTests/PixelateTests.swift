import Foundation
import ImageKernel
import Testing
import Transformers

@Suite("Pixelate")
struct PixelateTests {
    /// Each block is the mean of its pixels (rounded), the last blocks of a row or column are
    /// narrower, and the size and format stay.
    @Test(arguments: [PixelFormat.rgb8, .gray8, .rgba8])
    func blocksAreTheMeanOfTheirPixels(format: PixelFormat) throws {
        let image = try noiseImage(width: 23, height: 17, format: format)
        let side = 5
        let result = try PixelateTransformer(size: side).transform(image)
        #expect(result.width == 23 && result.height == 17 && result.pixelFormat == format)
        let channels = format.channelCount
        var worst = 0.0
        for y in 0..<17 { for x in 0..<23 { for c in 0..<channels {
            let bx = x / side * side, by = y / side * side
            var total = 0.0, weight = 0.0
            for yy in by..<min(by + side, 17) { for xx in bx..<min(bx + side, 23) {
                // Colour is averaged premultiplied: weighted by alpha where there is one.
                let alpha = format.hasAlpha && c < channels - 1 ? Double(sample(image, xx, yy, channels - 1)) / 255 : 1
                total += Double(sample(image, xx, yy, c)) * alpha
                weight += alpha
            } }
            let expected = weight > 0 ? total / weight : 0
            if !format.hasAlpha || sample(result, x, y, channels - 1) > 8 { worst = max(worst, abs(Double(sample(result, x, y, c)) - expected)) }
        } } }
        #expect(worst <= 1, "\(format): worst difference \(worst)")
    }

    @Test func aBlockOfOneOrLessLeavesTheImageAndTheSpecNamesTheStep() throws {
        let image = try noiseImage(width: 9, height: 4, format: .rgb8)
        #expect(try PixelateTransformer(size: 1).transform(image).pixels == image.pixels)
        let spec = try TransformSpec(parsing: "pixelate:3")
        #expect(spec.key == "pixelate:3")
        let blocky = try spec.transform(image)
        #expect(sample(blocky, 0, 0, 0) == sample(blocky, 2, 2, 0))
        #expect(throws: TransformSpecError.self) { try TransformSpec(parsing: "pixelate:0") }
    }
}
