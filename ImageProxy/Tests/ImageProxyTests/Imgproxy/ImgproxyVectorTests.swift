import CoderPNG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// SVG sources with `crop`, `rotate` and `trim` through `image-proxy --compat imgproxy`: drawn at
/// the scale imgproxy loads them at (its `scaleOnLoad`; for `trim`, the scale of the trimmed part),
/// so the result has imgproxy's size and a hard colour edge of the document stays hard, where a
/// drawing at the document's own size scaled up would spread it over several pixels.
@Suite("imgproxy compat: vector sources with crop, rotate and trim", .serialized)
struct ImgproxyVectorTests {
    /// A 200x100 document, red left of x = 100 and blue right of it; and the same halves inside a
    /// white margin of 20 (red 20..<100, blue 100..<180, both 20..<80 high).
    static let halves = """
        <svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="100" height="100" fill="#ff0000"/>\
        <rect x="100" width="100" height="100" fill="#0000ff"/></svg>
        """
    static let framed = """
        <svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100" fill="#ffffff"/>\
        <rect x="20" y="20" width="80" height="60" fill="#ff0000"/><rect x="100" y="20" width="80" height="60" fill="#0000ff"/></svg>
        """
    static let red: [UInt8] = [255, 0, 0, 255], blue: [UInt8] = [0, 0, 255, 255]

    /// The service and a URL maker for a file of the origin.
    static func start() throws -> (HTTPTestServer, ProxyProcess) {
        let origin = try HTTPTestServer()
        origin.addFile("halves.svg", data: Data(halves.utf8))
        origin.addFile("framed.svg", data: Data(framed.utf8))
        let proxy = try ProxyProcess(["--compat", "imgproxy", "--allow-origin", origin.baseURL.absoluteString + "/"])
        return (origin, proxy)
    }

    /// The PNG result of `options` on `file`, as RGBA8.
    static func render(_ options: String, _ file: String, _ origin: HTTPTestServer, _ proxy: ProxyProcess) async throws -> Image {
        let response = try await HTTP.get(proxy.url("/unsafe/\(options)/plain/\(origin.url("/files/" + file).absoluteString)@png"))
        guard response.status == 200 else { throw TestFailure("\(options): \(response.status) \(String(decoding: response.body.prefix(300), as: UTF8.self))") }
        return try CoderRegistry([PNGCoder()]).decode(response.body, options: DecodeOptions()).convertedToRGBA8()
    }

    static func pixel(_ image: Image, _ x: Int, _ y: Int) -> [UInt8] {
        let at = (y * image.width + x) * 4
        return Array(image.pixels[at..<at + 4])
    }

    @Test("a crop of an enlarged SVG is cut from the drawing at imgproxy's scale: its size, and the edge sharp")
    func cropIsDrawnAtTheFinalScale() async throws {
        let (origin, proxy) = try Self.start()
        // (options, size, the edge's column: red up to it, blue from it)
        let cases: [(String, Int, Int, Int)] = [
            ("c:100:50/w:400", 400, 200, 200),  // centred 100x50 from x = 50, four times
            ("c:100:50:nowe:20:10/w:400", 400, 200, 320),  // from x = 20: offsets scale with the drawing
            ("c:0.5:0.5/rs:fit:300:300", 300, 150, 150),  // a fraction of the document, three times
            ("c:120:100:ea/h:300", 360, 300, 60),  // from x = 80, three times
            ("dpr:2", 400, 200, 200),  // no crop: dpr scales the drawing once
        ]
        for (options, width, height, edge) in cases {
            let image = try await Self.render(options, "halves.svg", origin, proxy)
            #expect(image.width == width && image.height == height, "\(options): \(image.width)x\(image.height)")
            guard image.width == width && image.height == height else { continue }
            let y = height / 2
            #expect(Self.pixel(image, edge - 2, y) == Self.red && Self.pixel(image, edge + 1, y) == Self.blue,
                    "\(options): the edge at \(edge) is within 1-2 pixels, \(Self.pixel(image, edge - 2, y)) | \(Self.pixel(image, edge + 1, y))")
        }
    }

    @Test("a rotated enlarged SVG is drawn at imgproxy's scale, with the sizes swapped before the geometry")
    func rotationIsDrawnAtTheFinalScale() async throws {
        let (origin, proxy) = try Self.start()
        // The 200x100 document turned is 100x200: w:400 scales it four times; fit 300x300 1.5 times.
        for (options, width, height) in [("rot:90/w:400", 400, 800), ("rot:270/rs:fit:300:300", 150, 300), ("rot:180/w:600", 600, 300)] {
            let image = try await Self.render(options, "halves.svg", origin, proxy)
            #expect(image.width == width && image.height == height, "\(options): \(image.width)x\(image.height)")
            guard image.width == width && image.height == height else { continue }
            // The halves' edge runs across the middle of the turned image (down it for 180).
            let (before, after) = options.hasPrefix("rot:180")
                ? (Self.pixel(image, width / 2 - 2, height / 2), Self.pixel(image, width / 2 + 1, height / 2))
                : (Self.pixel(image, width / 2, height / 2 - 2), Self.pixel(image, width / 2, height / 2 + 1))
            #expect(Set([before, after]) == Set([Self.red, Self.blue]), "\(options): \(before) | \(after), not a sharp edge")
        }
    }

    @Test("trim finds its box on the document at its own size, then takes imgproxy's raster geometry, drawn sharp when enlarged")
    func trimTakesImgproxysSizes() async throws {
        let (origin, proxy) = try Self.start()
        // imgproxy trims the document drawn at its own size (160x60 here) and drops its vector
        // data: `enlarge` then decides, as for any raster. Enlarged, the trimmed box is cut from
        // the document drawn at that scale.
        for (options, width, height) in [("t:10/w:640", 160, 60), ("t:10/w:640/el:1", 640, 240), ("t:10/w:80", 80, 30), ("t:10/h:180/el:1", 480, 180)] {
            let image = try await Self.render(options, "framed.svg", origin, proxy)
            #expect(image.width == width && image.height == height, "\(options): \(image.width)x\(image.height)")
            guard image.width == width && image.height == height else { continue }
            let red = Self.pixel(image, width / 4, height / 2), blue = Self.pixel(image, width * 3 / 4, height / 2)
            #expect(red[0] > 200 && red[2] < 50 && blue[2] > 200 && blue[0] < 50, "\(options): no margin left, \(red) \(blue)")
            guard width > 160 else { continue }
            // The halves' edge in the middle and the trimmed borders are hard.
            let y = height / 2
            #expect(Self.pixel(image, width / 2 - 2, y) == Self.red && Self.pixel(image, width / 2 + 1, y) == Self.blue, "\(options): the edge")
            #expect(Self.pixel(image, 0, 0) == Self.red && Self.pixel(image, width - 1, height - 1) == Self.blue, "\(options): the corners")
        }
    }
}
