import ImageKernel
import Testing
import Transformers

@Suite("Resize modes, formats and limits")
struct ResizeBehaviourTests {
    @Test func fitKeepsTheAspectRatioAndNeverEnlargesUnlessAsked() throws {
        let image = try noiseImage(width: 100, height: 50, format: .rgb8)
        let fit = try ResizeTransformer(.fit, width: 40, height: 40).transform(image)
        #expect(fit.width == 40 && fit.height == 20)
        let same = try ResizeTransformer(.fit, width: 400, height: 400).transform(image)
        #expect(same.width == 100 && same.height == 50)
        let big = try ResizeTransformer(.fit, width: 400, height: 400, allowsEnlarging: true).transform(image)
        #expect(big.width == 400 && big.height == 200)
    }

    @Test func fillCoversTheBoxThenCropsByGravity() throws {
        let image = try noiseImage(width: 100, height: 50, format: .rgb8)
        let fill = try ResizeTransformer(.fill, width: 30, height: 30).transform(image)
        #expect(fill.width == 30 && fill.height == 30)
        // Left-aligned fill of a half-size box equals a plain resize's left part.
        let west = try ResizeTransformer(.fill, width: 25, height: 25, filter: .box, gravity: .west).transform(image)
        let whole = try ResizeTransformer(.fit, width: 50, height: 25, filter: .box).transform(image)
        for y in 0..<25 { for x in 0..<25 { #expect(sample(west, x, y, 1) == sample(whole, x, y, 1)) } }
        // A box larger than the image on one side, without enlarging: an exact crop.
        let crop = try ResizeTransformer(.fill, width: 60, height: 80).transform(image)
        #expect(crop.width == 60 && crop.height == 50)
        #expect(sample(crop, 0, 0, 0) == sample(image, 20, 0, 0))
    }

    @Test func stretchReachesTheBoxOnlyWhenAllowedToGrow() throws {
        let image = try noiseImage(width: 30, height: 20, format: .gray8)
        let clamped = try ResizeTransformer(.stretch, width: 10, height: 40).transform(image)
        #expect(clamped.width == 10 && clamped.height == 20)
        let grown = try ResizeTransformer(.stretch, width: 10, height: 40, allowsEnlarging: true).transform(image)
        #expect(grown.width == 10 && grown.height == 40)
    }

    @Test(arguments: [PixelFormat.gray8, .grayAlpha8, .rgb8, .rgba8, .rgba8Premultiplied, .gray16, .grayAlpha16, .rgb16, .rgba16])
    func everyPixelFormatKeepsItsFormatAndMetadata(_ format: PixelFormat) throws {
        var image = try noiseImage(width: 33, height: 21, format: format)
        image.iccProfile = [1, 2, 3]
        image.orientation = .right
        for filter in ResamplingFilter.allCases {
            let out = try ResizeTransformer(.fit, width: 16, height: 16, filter: filter).transform(image)
            #expect(out.pixelFormat == format && out.width == 16 && out.height == 10)
            #expect(out.iccProfile == [1, 2, 3] && out.orientation == .right)
        }
    }

    @Test func sixteenBitResamplingUsesTheWholeRange() throws {
        // A flat 16-bit image stays flat at its exact value.
        let value: UInt16 = 54_321
        let pixels = [UInt16](repeating: value, count: 17 * 9 * 3).withUnsafeBytes { Array($0) }
        let image = try Image(width: 17, height: 9, pixelFormat: .rgb16, pixels: pixels)
        let out = try ResizeTransformer(.stretch, width: 5, height: 4, filter: .lanczos3).transform(image)
        let samples = out.pixels.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
        #expect(samples.allSatisfy { $0 == value })
    }

    @Test func transparentPixelsLeaveNoDarkFringe() throws {
        // Transparent black beside opaque white: downscaled, the edge pixels stay white.
        var pixels = [UInt8](repeating: 0, count: 40 * 10 * 4)
        for y in 0..<10 { for x in 20..<40 { for c in 0..<4 { pixels[(y * 40 + x) * 4 + c] = 255 } } }
        let image = try Image(width: 40, height: 10, pixelFormat: .rgba8, pixels: pixels)
        for filter in ResamplingFilter.allCases {
            let out = try ResizeTransformer(.fit, width: 13, height: 13, filter: filter).transform(image)
            for x in 0..<out.width where sample(out, x, 1, 3) > 8 {
                #expect(sample(out, x, 1, 0) >= 250, "\(filter) x \(x): colour \(sample(out, x, 1, 0)) at alpha \(sample(out, x, 1, 3))")
            }
        }
    }

    @Test func hostileSizesAreTypedErrorsNotCrashes() throws {
        let image = try noiseImage(width: 10, height: 10, format: .rgb8)
        let cases: [(ResizeTransformer, ImageKernelError.Code)] = [
            (ResizeTransformer(.fit, width: 0, height: 10), .invalidArgument),
            (ResizeTransformer(.stretch, width: -4, height: 10, allowsEnlarging: true), .invalidArgument),
            (ResizeTransformer(.stretch, width: 65_536, height: 65_536, allowsEnlarging: true), .tooLarge),
            (ResizeTransformer(.fit, width: Int.max, height: Int.max, allowsEnlarging: true), .tooLarge),
        ]
        for (resize, code) in cases {
            let error = Result { () throws(ImageKernelError) in try resize.transform(image) }.error
            #expect(error?.stage == .transform && error?.code == code, "\(resize.key)")
        }
        var broken = image
        broken.pixels = [1, 2, 3]
        #expect(Result { () throws(ImageKernelError) in try ResizeTransformer(.fit, width: 5, height: 5).transform(broken) }.error?.code == .invalidArgument)
    }

    @Test func onePixelImagesResizeBothWays() throws {
        let dot = try Image(width: 1, height: 1, pixelFormat: .rgba8, pixels: [10, 20, 30, 255])
        let up = try ResizeTransformer(.stretch, width: 3, height: 2, allowsEnlarging: true).transform(dot)
        #expect(up.pixels == [UInt8]([10, 20, 30, 255, 10, 20, 30, 255, 10, 20, 30, 255, 10, 20, 30, 255, 10, 20, 30, 255, 10, 20, 30, 255]))
        let image = try noiseImage(width: 9, height: 7, format: .gray8)
        let down = try ResizeTransformer(.stretch, width: 1, height: 1, filter: .box).transform(image)
        let mean = Double(image.pixels.reduce(0) { $0 + Int($1) }) / 63
        #expect(abs(Double(down.pixels[0]) - mean) <= 1)
    }
}
