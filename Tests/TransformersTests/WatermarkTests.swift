import ImageKernel
import Testing
import Transformers

/// `watermark`: premultiplied compositing, opacity, gravity, tiling and scale, pixel by pixel.
@Suite("Watermark")
struct WatermarkTests {
    static func gray(_ width: Int, _ height: Int, _ level: UInt8 = 100) throws -> Image {
        try Image(width: width, height: height, pixelFormat: .rgb8, pixels: [UInt8](repeating: level, count: width * height * 3))
    }

    /// A 2x2 watermark: opaque red (200, 0, 0) on the top row, transparent below.
    static let mark: Image = try! Image(width: 2, height: 2, pixelFormat: .rgba8, pixels: [200, 0, 0, 255, 200, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0])

    @Test func opacityBlendsPremultipliedAndTransparentPixelsLeaveTheImage() throws {
        let out = try TransformSpec(parsing: "watermark:0.5:nowe", watermark: Self.mark).transform(try Self.gray(4, 4))
        #expect(out.pixelFormat == .rgb8)
        #expect([sample(out, 0, 0, 0), sample(out, 0, 0, 1), sample(out, 0, 0, 2)] == [150, 50, 50])
        #expect(sample(out, 0, 1, 0) == 100 && sample(out, 2, 0, 0) == 100)
        let full = try TransformSpec(parsing: "watermark:1:nowe", watermark: Self.mark).transform(try Self.gray(4, 4))
        #expect(sample(full, 1, 0, 0) == 200 && sample(full, 1, 0, 1) == 0)
    }

    @Test func gravityPlacesTheWatermark() throws {
        let out = try TransformSpec(parsing: "watermark:1:soea", watermark: Self.mark).transform(try Self.gray(5, 4))
        #expect(sample(out, 3, 2, 0) == 200 && sample(out, 4, 2, 0) == 200)
        #expect(sample(out, 2, 2, 0) == 100 && sample(out, 3, 3, 0) == 100 && sample(out, 0, 0, 0) == 100)
        let centred = try TransformSpec(parsing: "watermark:1", watermark: Self.mark).transform(try Self.gray(6, 6))
        #expect(sample(centred, 2, 2, 0) == 200 && sample(centred, 3, 2, 0) == 200 && sample(centred, 1, 2, 0) == 100)
    }

    @Test func repeatTilesFromTheTopLeftCorner() throws {
        let out = try TransformSpec(parsing: "watermark:1:re", watermark: Self.mark).transform(try Self.gray(5, 3))
        let rows = (0..<3).map { y in (0..<5).map { sample(out, $0, y, 0) } }
        #expect(rows == [[200, 200, 200, 200, 200], [100, 100, 100, 100, 100], [200, 200, 200, 200, 200]])
    }

    @Test func scaleIsAFractionOfTheResultsWidth() throws {
        let out = try TransformSpec(parsing: "watermark:1:nowe:0.5", watermark: Self.mark).transform(try Self.gray(8, 8))
        // A 4x4 watermark: red at the top, the image itself right of and below it.
        #expect(sample(out, 3, 0, 0) >= 190 && sample(out, 3, 0, 1) <= 10)
        #expect(sample(out, 4, 0, 0) == 100 && sample(out, 0, 4, 0) == 100 && sample(out, 7, 7, 0) == 100)
    }

    @Test func aTransparentImageTakesTheWatermarksAlpha() throws {
        let image = try Image(width: 2, height: 2, pixelFormat: .rgba8, pixels: [UInt8](repeating: 0, count: 16))
        let out = try WatermarkTransformer(watermark: Self.mark, opacity: 0.5, position: .gravity(.northWest)).transform(image)
        #expect(out.pixelFormat == .rgba8)
        #expect(Array(out.pixels[0..<4]) == [200, 0, 0, 128])
        #expect(Array(out.pixels[8..<12]) == [0, 0, 0, 0])
    }

    @Test func grayImagesTakeTheWatermarksLuma() throws {
        let image = try Image(width: 2, height: 2, pixelFormat: .gray8, pixels: [0, 0, 0, 0])
        let out = try WatermarkTransformer(watermark: Self.mark, position: .gravity(.northWest)).transform(image)
        #expect(out.pixelFormat == .gray8 && out.pixels == [43, 43, 0, 0])
    }

    @Test func zeroOpacityChangesNothing() throws {
        let image = try Self.gray(3, 3)
        #expect(try TransformSpec(parsing: "watermark:0:re", watermark: Self.mark).transform(image).pixels == image.pixels)
    }
}
