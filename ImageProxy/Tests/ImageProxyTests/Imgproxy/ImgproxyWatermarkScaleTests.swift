import CoderPNG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing
import Transformers

/// imgproxy's `watermark` scale above 4 (imgproxy sets no bound), through the running service:
/// the mark fitted into `SCALE` times the result's size and placed there, of which only the part
/// that lands on the result is resized, so a scale of 1000 costs what a mark the result's size does.
@Suite("imgproxy compat: watermark scales without a bound", .serialized)
struct ImgproxyWatermarkScaleTests {
    /// A white 200x100 source.
    static let source = try! Image(width: 200, height: 100, pixelFormat: .rgb8, pixels: [UInt8](repeating: 255, count: 200 * 100 * 3))
    /// A red 400x200 mark with a green 80x40 square in its middle (160..<240, 80..<120).
    static let mark: Image = {
        var pixels = [UInt8](repeating: 0, count: 400 * 200 * 3)
        for y in 0..<200 {
            for x in 0..<400 {
                let green = (160..<240).contains(x) && (80..<120).contains(y)
                pixels[(y * 400 + x) * 3 + (green ? 1 : 0)] = 255
            }
        }
        return try! Image(width: 400, height: 200, pixelFormat: .rgb8, pixels: pixels)
    }()

    enum Colour { case red, green, white }

    static func colour(_ image: Image, _ x: Int, _ y: Int) -> Colour? {
        let at = (y * image.width + x) * 4
        let (r, g, b) = (image.pixels[at], image.pixels[at + 1], image.pixels[at + 2])
        if r > 240 && g < 15 && b < 15 { return .red }
        if g > 240 && r < 15 && b < 15 { return .green }
        if r > 240 && g > 240 && b > 240 { return .white }
        return nil
    }

    @Test("scales of 10 and 1000 place the mark where imgproxy's geometry puts it, tiled or not")
    func largeScalesTakeImgproxysGeometry() async throws {
        let origin = try HTTPTestServer()
        origin.addFile("white.png", data: try PNGCoder().encode(Self.source, as: .png, options: EncodeOptions()))
        let markFile = FileManager.default.temporaryDirectory.appendingPathComponent("mark-\(UUID().uuidString).png")
        try PNGCoder().encode(Self.mark, as: .png, options: EncodeOptions()).write(to: markFile)
        defer { try? FileManager.default.removeItem(at: markFile) }
        let proxy = try ProxyProcess(["--compat", "imgproxy", "--allow-origin", origin.baseURL.absoluteString + "/", "--watermark", markFile.path])
        let url = origin.url("/files/white.png").absoluteString
        // At 10 the mark is 2000x1000 (five times): centred, the result shows its middle 200x100,
        // inside the green square; from the top-left corner, red; offsets of -700, -350 show the
        // square's top-left corner at (100, 50). At 1000 it is 200000x100000: centred, the result
        // is a fifth of a mark pixel of the square. Tiled, one cell covers the result, so its one
        // copy is centred as imgproxy centres it: inside the square at 10 and 1000 (gaps or not);
        // at 4.5 (900x450, above the whole-mark limit of 4) the result shows mark columns
        // 350..<550, the square's 360..<540 with red on either side.
        let cases: [(String, [(Int, Int, Colour)])] = [
            ("wm:1:ce:0:0:10", [(0, 0, .green), (100, 50, .green), (199, 99, .green), (10, 90, .green)]),
            ("wm:1:nowe:0:0:10", [(0, 0, .red), (199, 99, .red)]),
            ("wm:1:nowe:-700:-350:10", [(50, 25, .red), (150, 75, .green), (150, 20, .red), (60, 80, .red), (190, 95, .green)]),
            ("wm:1:ce:0:0:1000", [(0, 0, .green), (100, 50, .green), (199, 99, .green)]),
            ("wm:1:soea:0:0:1000", [(0, 0, .red), (199, 99, .red)]),
            ("wm:1:re:0:0:1000", [(0, 0, .green), (100, 50, .green), (199, 99, .green)]),
            ("wm:1:re:100:50:10", [(0, 0, .green), (25, 50, .green), (199, 99, .green)]),
            ("wm:1:re:0:0:4.5", [(2, 50, .red), (100, 50, .green), (197, 50, .red)]),
            ("wm:1:re:40:0:4.5", [(2, 50, .red), (100, 50, .green), (197, 50, .red)]),
        ]
        for (options, spots) in cases {
            let response = try await HTTP.get(proxy.url("/unsafe/\(options)/plain/\(url)@png"))
            #expect(response.status == 200, "\(options): \(String(decoding: response.body.prefix(300), as: UTF8.self))")
            guard response.status == 200 else { continue }
            let image = try CoderRegistry([PNGCoder()]).decode(response.body, options: DecodeOptions()).convertedToRGBA8()
            #expect(image.width == 200 && image.height == 100, "\(options)")
            guard image.width == 200 && image.height == 100 else { continue }
            for (x, y, expected) in spots {
                #expect(Self.colour(image, x, y) == expected, "\(options) at (\(x), \(y)): \(Array(image.pixels[(y * 200 + x) * 4..<(y * 200 + x) * 4 + 4]))")
            }
        }
    }

    @Test("a window of a resize is the same rectangle of the whole resize")
    func windowEqualsTheWholeResizeCut() throws {
        // Opaque: where alpha is near 0, un-premultiplying magnifies the last bit of a sample.
        var pixels = [UInt8](repeating: 0, count: 40 * 20 * 3)
        for i in 0..<pixels.count { pixels[i] = UInt8((i * 37 + i / 120 * 11) % 256) }
        let small = try Image(width: 40, height: 20, pixelFormat: .rgb8, pixels: pixels)
        for (width, height, window) in [(300, 150, (37, 11, 100, 60)), (33, 17, (0, 5, 33, 7)), (700, 20, (650, 0, 50, 20))] {
            let whole = try ResizeTransformer(.stretch, width: width, height: height, allowsEnlarging: true).transform(small)
            let cut = try CropTransformer(.rect(x: window.0, y: window.1, width: window.2, height: window.3)).transform(whole)
            let part = try ResizeWindowTransformer(
                resizedWidth: width, resizedHeight: height, window: .init(x: window.0, y: window.1, width: window.2, height: window.3)
            ).transform(small)
            #expect(part.width == cut.width && part.height == cut.height)
            let difference = zip(part.rgba8Pixels(), cut.rgba8Pixels()).map { abs(Int($0) - Int($1)) }.max() ?? 255
            #expect(difference <= 1, "\(width)x\(height) \(window): differs by \(difference)")
        }
        #expect(throws: ImageKernelError.self) {
            try ResizeWindowTransformer(resizedWidth: 10, resizedHeight: 10, window: .init(x: 5, y: 0, width: 6, height: 10)).transform(small)
        }
    }
}
