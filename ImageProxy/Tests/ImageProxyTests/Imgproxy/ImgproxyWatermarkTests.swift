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
}
