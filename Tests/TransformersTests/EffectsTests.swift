import Foundation
import ImageKernel
import Testing
import Transformers

@Suite("Blur, sharpen, round corners, tint, grayscale, free rotation")
struct EffectsTests {
    /// A separable Gaussian in Double, truncated at ceil(3 sigma) and renormalised at the edges.
    static func referenceBlur(_ image: Image, sigma: Double) -> [Double] {
        let (w, h, ch) = (image.width, image.height, image.pixelFormat.channelCount)
        let radius = max(1, Int((3 * sigma).rounded(.up)))
        func weights(_ i: Int, _ n: Int) -> [(Int, Double)] {
            let taps = (max(0, i - radius)..<min(n, i + radius + 1)).map { ($0, exp(-Double(($0 - i) * ($0 - i)) / (2 * sigma * sigma))) }
            let total = taps.reduce(0) { $0 + $1.1 }
            return taps.map { ($0.0, $0.1 / total) }
        }
        var horizontal = [Double](repeating: 0, count: w * h * ch)
        for y in 0..<h { for x in 0..<w { for (j, wt) in weights(x, w) { for c in 0..<ch {
            horizontal[(y * w + x) * ch + c] += wt * Double(sample(image, j, y, c))
        } } } }
        var out = [Double](repeating: 0, count: w * h * ch)
        for y in 0..<h { for (j, wt) in weights(y, h) { for x in 0..<w { for c in 0..<ch {
            out[(y * w + x) * ch + c] += wt * horizontal[(j * w + x) * ch + c]
        } } } }
        return out
    }

    @Test(arguments: [0.7, 2.0, 5.0])
    func blurMatchesAFloatGaussianWithinOne(_ sigma: Double) throws {
        for format in [PixelFormat.rgb8, .gray8] {
            let image = try noiseImage(width: 45, height: 33, format: format)
            let blurred = try GaussianBlurTransformer(sigma: sigma).transform(image)
            #expect(blurred.pixelFormat == format && blurred.width == 45 && blurred.height == 33)
            let reference = Self.referenceBlur(image, sigma: sigma)
            let worst = zip(blurred.pixels, reference).map { abs(Double($0) - $1) }.max() ?? 0
            #expect(worst <= 1, "sigma \(sigma) \(format): worst difference \(worst)")
        }
    }

    @Test func blurKeepsTransparentColourOutOfOpaquePixels() throws {
        // Left half transparent black, right half opaque white: blurred, no pixel turns grey.
        var pixels = [UInt8](repeating: 0, count: 20 * 4 * 4)
        for y in 0..<4 { for x in 10..<20 { for c in 0..<4 { pixels[(y * 20 + x) * 4 + c] = 255 } } }
        let image = try Image(width: 20, height: 4, pixelFormat: .rgba8, pixels: pixels)
        let blurred = try GaussianBlurTransformer(sigma: 2).transform(image)
        for x in 0..<20 where sample(blurred, x, 1, 3) > 8 {
            #expect(sample(blurred, x, 1, 0) >= 250, "x \(x): colour \(sample(blurred, x, 1, 0)) at alpha \(sample(blurred, x, 1, 3))")
        }
        #expect(sample(blurred, 9, 1, 3) > 0 && sample(blurred, 9, 1, 3) < 255, "the edge is blurred")
    }

    @Test func sharpenRaisesLocalContrast() throws {
        var pixels = [UInt8](repeating: 100, count: 20 * 5)
        for y in 0..<5 { for x in 10..<20 { pixels[y * 20 + x] = 150 } }
        let image = try Image(width: 20, height: 5, pixelFormat: .gray8, pixels: pixels)
        let sharp = try SharpenTransformer(sigma: 1).transform(image)
        #expect(sample(sharp, 9, 2, 0) < 100 && sample(sharp, 10, 2, 0) > 150)
        #expect(sample(sharp, 0, 2, 0) == 100 && sample(sharp, 19, 2, 0) == 150, "flat areas are untouched")
    }

    @Test func roundCornersMakeCornersTransparentAndLeaveTheCentre() throws {
        let image = try noiseImage(width: 40, height: 30, format: .rgb8)
        let rounded = try RoundCornersTransformer(.corners(radius: 8)).transform(image)
        #expect(rounded.pixelFormat == .rgba8)
        for (x, y) in [(0, 0), (39, 0), (0, 29), (39, 29), (1, 1), (38, 28)] { #expect(sample(rounded, x, y, 3) == 0, "corner \(x),\(y)") }
        var partial = 0
        for y in 0..<30 {
            for x in 0..<40 {
                let alpha = sample(rounded, x, y, 3)
                let inCorner = (x < 8 || x >= 32) && (y < 8 || y >= 22)
                if !inCorner {
                    #expect(alpha == 255 && (0..<3).allSatisfy { sample(rounded, x, y, $0) == sample(image, x, y, $0) }, "\(x),\(y) must be untouched")
                }
                if alpha > 0 && alpha < 255 { partial += 1 }
            }
        }
        #expect(partial >= 8, "the arcs are anti-aliased")
    }

    @Test func circleKeepsTheInscribedDisc() throws {
        let image = try noiseImage(width: 31, height: 31, format: .rgba8Premultiplied)
        let circle = try RoundCornersTransformer(.circle).transform(image)
        #expect(circle.pixelFormat == .rgba8Premultiplied)
        #expect((0..<4).allSatisfy { sample(circle, 0, 0, $0) == 0 && sample(circle, 30, 30, $0) == 0 })
        #expect((0..<4).allSatisfy { sample(circle, 15, 15, $0) == sample(image, 15, 15, $0) })
        #expect(sample(circle, 15, 0, 3) > 0, "the disc touches the edge")
    }

    @Test func tintBlendsTowardTheColourAndKeepsAlpha() throws {
        let image = try Image(width: 1, height: 1, pixelFormat: .rgba8, pixels: [0, 100, 200, 77])
        let tinted = try TintTransformer(RGBAColor(hex: "ff000080")!).transform(image)
        let s = 128.0 / 255
        #expect(tinted.pixels == [UInt8((255 * s).rounded()), UInt8((100 * (1 - s)).rounded()), UInt8((200 * (1 - s)).rounded()), 77])
    }

    @Test func grayscaleUsesRec709AndKeepsAlphaAndFormat() throws {
        let image = try Image(width: 2, height: 1, pixelFormat: .rgba8, pixels: [255, 0, 0, 10, 0, 255, 0, 200])
        let gray = try GrayscaleTransformer().transform(image)
        #expect(gray.pixelFormat == .rgba8)
        #expect(gray.pixels == [54, 54, 54, 10, 182, 182, 182, 200])
    }

    @Test func freeRotationFillsTheCornersWithTheBackground() throws {
        let image = try Image(width: 20, height: 10, pixelFormat: .rgb8, pixels: [UInt8](repeating: 40, count: 20 * 10 * 3))
        let turned = try RotateTransformer(degrees: 45, background: RGBAColor(hex: "ffffff")!).transform(image)
        #expect(turned.pixelFormat == .rgb8)
        #expect(turned.width == 22 && turned.height == 22)
        #expect(sample(turned, 0, 0, 0) == 255 && sample(turned, 11, 11, 0) == 40)
        let clear = try RotateTransformer(degrees: 30).transform(image)
        #expect(clear.pixelFormat == .rgba8, "a transparent background adds alpha")
        #expect(sample(clear, 0, 0, 3) == 0)
    }

    @Test func badArgumentsAreTypedErrors() throws {
        let image = try noiseImage(width: 8, height: 8, format: .rgb8)
        for transformer: any ImageTransformer in [
            GaussianBlurTransformer(sigma: 0), GaussianBlurTransformer(sigma: .nan), SharpenTransformer(sigma: -1),
            RoundCornersTransformer(.corners(radius: -3)),
        ] {
            let error = Result { () throws(ImageKernelError) in try transformer.transform(image) }.error
            #expect(error?.stage == .transform && error?.code == .invalidArgument, "\(transformer.key)")
        }
    }
}
