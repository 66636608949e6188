import Foundation
import ImageKernel
import ImageProxyCore
import Testing
import Transformers

/// imgproxy's `watermark:OPACITY:POSITION:X_OFFSET:Y_OFFSET:SCALE` through ``ImgproxyTransformer``:
/// offsets from the position's edges (partly outside allowed), and the mark fitted into `SCALE`
/// times the result's size.
@Suite("imgproxy compat: watermark placement")
struct ImgproxyWatermarkTests {
    /// A white 200x100 image and an opaque red 20x10 mark.
    static let image = try! Image(width: 200, height: 100, pixelFormat: .rgb8, pixels: [UInt8](repeating: 255, count: 200 * 100 * 3))
    static let mark = try! Image(width: 20, height: 10, pixelFormat: .rgb8, pixels: [UInt8]((0..<200).flatMap { _ in [255, 0, 0] }))

    /// The rectangle of red pixels in `image` (x0, y0, x1, y1, exclusive), or nil.
    static func redBox(_ image: Image) -> (Int, Int, Int, Int)? {
        let pixels = image.rgba8Pixels()
        var box: (Int, Int, Int, Int)?
        for y in 0..<image.height {
            for x in 0..<image.width where pixels[(y * image.width + x) * 4 + 1] < 128 {
                box = box.map { (min($0.0, x), min($0.1, y), max($0.2, x + 1), max($0.3, y + 1)) } ?? (x, y, x + 1, y + 1)
            }
        }
        return box
    }

    func placed(_ option: String) throws -> (Int, Int, Int, Int)? {
        let options = try ImgproxyPath.parse("/unsafe/\(option)/plain/http://images.dev/a.jpg", settings: ImgproxySettings()).options
        return Self.redBox(try ImgproxyTransformer(options: options, watermark: Self.mark).transform(Self.image))
    }

    @Test("offsets move the mark in from its position's edges, and may push it partly outside")
    func offsets() throws {
        #expect(try placed("wm:1:soea") ?? (0, 0, 0, 0) == (180, 90, 200, 100))
        #expect(try placed("wm:1:soea:10:5") ?? (0, 0, 0, 0) == (170, 85, 190, 95))
        #expect(try placed("wm:1:nowe:4:6") ?? (0, 0, 0, 0) == (4, 6, 24, 16))
        #expect(try placed("wm:1:nowe:-5:0") ?? (0, 0, 0, 0) == (0, 0, 15, 10), "partly outside, as imgproxy allows")
        // imgproxy centres with RoundToEven((outer - inner + 1) / 2): 90.5 → 90, 45.5 → 46.
        #expect(try placed("wm:1:ce:10:0") ?? (0, 0, 0, 0) == (100, 46, 120, 56))
    }

    @Test("scale fits the mark into that fraction (or multiple) of the result")
    func scale() throws {
        #expect(try placed("wm:1:ce:0:0:0.5") ?? (0, 0, 0, 0) == (50, 26, 150, 76))
        #expect(try placed("wm:1:nowe:0:0:0.25") ?? (0, 0, 0, 0) == (0, 0, 50, 25))
        #expect(try placed("wm:1:ce:0:0:2") ?? (0, 0, 0, 0) == (0, 0, 200, 100), "a scale over 1 covers the image")
    }

    /// Whether the pixel at (x, y) of `image` is red.
    static func isRed(_ pixels: [UInt8], _ width: Int, _ x: Int, _ y: Int) -> Bool { pixels[(y * width + x) * 4 + 1] < 128 }

    func tiled(_ option: String) throws -> [UInt8] {
        let options = try ImgproxyPath.parse("/unsafe/\(option)/plain/http://images.dev/a.jpg", settings: ImgproxySettings()).options
        return try ImgproxyTransformer(options: options, watermark: Self.mark).transform(Self.image).rgba8Pixels()
    }

    @Test("re repeats the mark as imgproxy's Replicate does: gaps from the offsets, an odd number of cells, centred")
    func replicate() throws {
        let plain = try tiled("wm:1:re")
        #expect(plain.enumerated().filter { $0.offset % 4 == 1 }.allSatisfy { $0.element < 128 }, "20x10 tiles cover 200x100 without a gap")
        // Gaps of 10 and 6 pixels: cells of 30x16, the mark at (5, 3) in each; 7 cells across
        // (210 wide, 5 cut on each side) and 7 down (112 high, 6 cut at the top): copies at
        // x = 0, 30, … and y = -3, 13, ….
        let spaced = try tiled("wm:1:re:10:6")
        var wrong: [(Int, Int)] = []
        for y in 0..<100 {
            for x in 0..<200 where Self.isRed(spaced, 200, x, y) != (x % 30 < 20 && (y + 3) % 16 < 10) { wrong.append((x, y)) }
        }
        #expect(wrong.isEmpty, "\(wrong.count) pixels off imgproxy's grid, first \(wrong.prefix(5))")
        // Fractions of the result: 0.1 of 200 is 20 horizontally, 0.1 of 100 is 10 vertically.
        let relative = try tiled("wm:1:re:0.1:0.1")
        for (x, y, red) in [(10, 5, true), (29, 14, true), (30, 5, false), (9, 5, false), (50, 5, true), (10, 25, true), (10, 16, false)] {
            #expect(Self.isRed(relative, 200, x, y) == red, "(\(x), \(y))")
        }
    }

    @Test("WatermarkTransformer's grid: copies every cell in all four directions from any origin; cells smaller than the mark are refused")
    func grid() throws {
        let image = try WatermarkTransformer(watermark: Self.mark, position: .grid(cellWidth: 50, cellHeight: 25, x: -35, y: -20)).transform(Self.image)
        let pixels = image.rgba8Pixels()
        // Copies at x = -35 + 50k (so 15, 65, …) and y = -20 + 25k (5, 30, …), 20x10 each.
        for y in 0..<100 {
            for x in 0..<200 {
                let red = (x + 35) % 50 < 20 && (y + 20) % 25 < 10
                #expect(Self.isRed(pixels, 200, x, y) == red, "(\(x), \(y))")
                if Self.isRed(pixels, 200, x, y) != red { return }
            }
        }
        #expect(throws: ImageKernelError.self) {
            try WatermarkTransformer(watermark: Self.mark, position: .grid(cellWidth: 19, cellHeight: 25, x: 0, y: 0)).transform(Self.image)
        }
    }
}
