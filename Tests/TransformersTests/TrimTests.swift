import ImageKernel
import Testing
import Transformers

/// `trim`: borders of one colour, on stills and on every frame of an animation.
@Suite("Trim")
struct TrimTests {
    /// A white `width`×`height` RGB image with `dots` set to their colours.
    static func canvas(_ width: Int, _ height: Int, _ dots: [(Int, Int, [UInt8])]) throws -> Image {
        var pixels = [UInt8](repeating: 255, count: width * height * 3)
        for (x, y, colour) in dots { pixels.replaceSubrange((y * width + x) * 3..<(y * width + x) * 3 + 3, with: colour) }
        return try Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels)
    }

    @Test func trimKeepsTheSmallestRectangleOfEverythingNotBorder() throws {
        let image = try Self.canvas(6, 5, [(2, 1, [200, 0, 0]), (3, 2, [0, 0, 200])])
        let out = try TransformSpec(parsing: "trim").transform(image)
        #expect(out.width == 2 && out.height == 2)
        #expect(out.pixels == [200, 0, 0, 255, 255, 255, 255, 255, 255, 0, 0, 200])
    }

    @Test func theThresholdDecidesWhatCountsAsBorder() throws {
        let image = try Self.canvas(6, 5, [(2, 1, [200, 0, 0]), (0, 4, [250, 250, 250])])
        #expect(try TransformSpec(parsing: "trim:10").transform(image).width == 1)
        let strict = try TransformSpec(parsing: "trim:2").transform(image)
        #expect(strict.width == 3 && strict.height == 4)
    }

    @Test func aGivenColourReplacesTheCorner() throws {
        // The corner is red; the border to cut is white.
        let image = try Self.canvas(5, 5, [(0, 0, [255, 0, 0]), (3, 3, [0, 0, 0])])
        #expect(try TransformSpec(parsing: "trim:10:ffffff").transform(image).width == 4)
        let byCorner = try TransformSpec(parsing: "trim").transform(image)
        #expect(byCorner.width == 5 && byCorner.height == 5)
    }

    @Test func transparentBordersAreTrimmedWhateverTheirColour() throws {
        var pixels = [UInt8](repeating: 0, count: 4 * 3 * 4)
        pixels[(1 * 4 + 1) * 4 + 3] = 255
        pixels[(0 * 4 + 3) * 4 + 0] = 255  // transparent red: still border
        let image = try Image(width: 4, height: 3, pixelFormat: .rgba8, pixels: pixels)
        let out = try TrimTransformer().transform(image)
        #expect(out.width == 1 && out.height == 1 && out.pixels == [0, 0, 0, 255])
    }

    @Test func anImageThatIsAllBorderIsKept() throws {
        let image = try Self.canvas(3, 3, [])
        #expect(try TrimTransformer().transform(image).width == 3)
    }

    @Test func everyFrameOfAnAnimationIsCutByTheUnionRectangle() throws {
        let first = try Self.canvas(6, 5, [(1, 1, [0, 0, 0])])
        let second = try Self.canvas(6, 5, [(4, 3, [0, 0, 0])])
        let animation = try Image(animating: [ImageFrame(image: first, duration: 0.1), ImageFrame(image: second, duration: 0.2)], loopCount: 0)
        let out = try TransformSpec(parsing: "trim/flip:h").transformAnimation(animation)
        #expect(out.frameCount == 2 && out.loopCount == 0)
        for frame in out.allFrames { #expect(frame.image.width == 4 && frame.image.height == 3) }
        #expect(out.allFrames.map(\.duration) == [0.1, 0.2])
        // Frame 0's dot at (1, 1) is at (0, 0) of the union, (3, 0) once flipped.
        #expect(sample(out, 3, 0, 0) == 0 && sample(out.frames[0].image, 0, 2, 0) == 0)
        // Frame by frame, each would be cut to its own dot.
        #expect(try TrimTransformer().transform(second).width == 1)
    }
}
