import ImageKernel
import Testing
import Transformers

/// `pad`, `extend` and `background`, pixel by pixel on tiny images.
@Suite("Pad, extend and background")
struct CanvasStepsTests {
    static func rgb(_ width: Int, _ height: Int, _ pixels: [UInt8]) throws -> Image {
        try Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels)
    }

    @Test func padSurroundsTheImageWithTheColourExactly() throws {
        let image = try Self.rgb(2, 1, [10, 20, 30, 40, 50, 60])
        let padded = try TransformSpec(parsing: "pad:1:0:0:1:ff0000").transform(image)
        #expect(padded.width == 3 && padded.height == 2 && padded.pixelFormat == .rgb8)
        #expect(padded.pixels == [255, 0, 0, 255, 0, 0, 255, 0, 0, 255, 0, 0, 10, 20, 30, 40, 50, 60])
    }

    @Test func aTransparentPadGivesAnOpaqueImageAlpha() throws {
        let image = try Self.rgb(1, 1, [10, 20, 30])
        let padded = try PadTransformer(top: 0, right: 1, bottom: 0, left: 0).transform(image)
        #expect(padded.pixelFormat == .rgba8)
        #expect(padded.pixels == [10, 20, 30, 255, 0, 0, 0, 0])
    }

    @Test func padKeepsSixteenBitSamples() throws {
        let image = try Image(width: 1, height: 1, pixelFormat: .gray16, pixels: [0x34, 0x12])
        let padded = try TransformSpec(parsing: "pad:0:1:0:0:ffffff").transform(image)
        #expect(padded.pixelFormat == .gray16)
        #expect(padded.pixels == [0x34, 0x12, 0xFF, 0xFF])
    }

    @Test func extendPlacesAFitResultOnTheBoxByGravity() throws {
        let image = try Self.rgb(4, 2, [UInt8](repeating: 9, count: 24))
        // The fit changes nothing (4x2 is inside 4x4); extend puts it in the middle of 4x4.
        let centred = try TransformSpec(parsing: "resize:fit:4:4/extend/background:000000").transform(image)
        #expect(centred.width == 4 && centred.height == 4 && centred.pixelFormat == .rgb8)
        #expect((0..<4).map { sample(centred, 0, $0, 0) } == [0, 9, 9, 0])
        let south = try TransformSpec(parsing: "extend:6:3:southeast:00ff00").transform(image)
        #expect(south.width == 6 && south.height == 3 && south.pixelFormat == .rgb8)
        #expect(sample(south, 1, 2, 1) == 255 && sample(south, 2, 1, 0) == 9 && sample(south, 5, 2, 0) == 9 && sample(south, 5, 0, 1) == 255)
    }

    @Test func extendNeverCutsASideLongerThanTheBox() throws {
        let image = try Self.rgb(5, 2, [UInt8](repeating: 9, count: 30))
        let out = try ExtendTransformer(width: 3, height: 4).transform(image)
        #expect(out.width == 5 && out.height == 4)
    }

    @Test func anOpaqueBackgroundFlattensAlpha() throws {
        let image = try Image(width: 3, height: 1, pixelFormat: .rgba8, pixels: [255, 0, 0, 128, 0, 0, 0, 0, 0, 0, 255, 255])
        let flat = try TransformSpec(parsing: "background:ffffff").transform(image)
        #expect(flat.pixelFormat == .rgb8)
        #expect(flat.pixels == [255, 127, 127, 255, 255, 255, 0, 0, 255])
        let gray = try Image(width: 2, height: 1, pixelFormat: .grayAlpha8, pixels: [0, 0, 200, 255])
        let flatGray = try BackgroundTransformer(RGBAColor(red: 100, green: 100, blue: 100)).transform(gray)
        #expect(flatGray.pixelFormat == .gray8 && flatGray.pixels == [100, 200])
    }

    @Test func aTranslucentBackgroundGoesUnderTheImageAndKeepsAlpha() throws {
        let image = try Image(width: 2, height: 1, pixelFormat: .rgba8, pixels: [0, 0, 0, 0, 0, 0, 255, 255])
        let out = try TransformSpec(parsing: "background:ff000080").transform(image)
        #expect(out.pixelFormat == .rgba8)
        #expect(out.pixels == [255, 0, 0, 128, 0, 0, 255, 255])
    }

    @Test func aBackgroundLeavesAnOpaqueImageAlone() throws {
        let image = try Self.rgb(1, 1, [1, 2, 3])
        #expect(try TransformSpec(parsing: "background:ffffff").transform(image).pixels == [1, 2, 3])
    }
}
