import CoderJPEG
import CoderPNG
import CoderWebP
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// imgproxy's service-wide output settings through the running service in `--compat imgproxy`:
/// `--preferred-format` (`IMGPROXY_PREFERRED_FORMATS`), `--skip-processing-format`
/// (`IMGPROXY_SKIP_PROCESSING_FORMATS`), `--watermark-opacity` (`IMGPROXY_WATERMARK_OPACITY`) and
/// `--no-auto-rotate` (`IMGPROXY_AUTO_ROTATE=false`).
@Suite("imgproxy compat: the service's output defaults", .serialized)
struct ImgproxyServiceDefaultsTests {
    static func decode(_ response: HTTP.Response) throws -> Image {
        try CoderRegistry([PNGCoder(), JPEGCoder(), WebPCoder()]).decode(response.body, options: DecodeOptions())
    }

    @Test func preferredFormatsKeepAListedSourceFormatElseTakeTheFirstThatFits() async throws {
        let origin = try ImgproxyCompatTests.origin()
        let proxy = try ImgproxyCompatTests.start(origin, ["--preferred-format", "webp", "--preferred-format", "png"])
        let png = try await HTTP.get(proxy.url("/unsafe/w:50/plain/\(origin.url("/files/geometry.png").absoluteString)"))
        #expect(png.header("Content-Type") == "image/png", "a listed source format is kept")
        let jpeg = try await HTTP.get(proxy.url("/unsafe/w:50/plain/\(origin.url("/files/geometry.jpg").absoluteString)"))
        #expect(jpeg.header("Content-Type") == "image/webp", "an unlisted one takes the first listed")
        #expect(try Self.decode(jpeg).width == 50)
        let named = try await HTTP.get(proxy.url("/unsafe/w:50/plain/\(origin.url("/files/geometry.jpg").absoluteString)@jpg"))
        #expect(named.header("Content-Type") == "image/jpeg", "a format the URL names wins")
        let defaults = try ImgproxyCompatTests.start(origin)
        let kept = try await HTTP.get(defaults.url("/unsafe/w:50/plain/\(origin.url("/files/geometry.jpg").absoluteString)"))
        #expect(kept.header("Content-Type") == "image/jpeg", "imgproxy's default list: JPEG, PNG, GIF")
    }

    @Test func skipProcessingFormatsAnswerTheSourceAsItIs() async throws {
        let origin = try ImgproxyCompatTests.origin()
        let proxy = try ImgproxyCompatTests.start(origin, ["--skip-processing-format", "png"])
        let png = try await HTTP.get(proxy.url("/unsafe/w:50/plain/\(origin.url("/files/geometry.png").absoluteString)"))
        #expect(try Self.decode(png).width == 200, "the PNG source as it is")
        let jpeg = try await HTTP.get(proxy.url("/unsafe/w:50/plain/\(origin.url("/files/geometry.jpg").absoluteString)"))
        #expect(try Self.decode(jpeg).width == 50, "other formats are rendered")
    }

    @Test func theWatermarkOpacityScalesEveryURLsOpacity() async throws {
        let origin = try ImgproxyCompatTests.origin()
        let mark = FileManager.default.temporaryDirectory.appendingPathComponent("opacity-mark-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: mark) }
        let red = try Image(width: 20, height: 20, pixelFormat: .rgb8, pixels: (0..<400).flatMap { _ in [UInt8(255), 0, 0] })
        try PNGCoder().encode(red, as: .png, options: EncodeOptions()).write(to: mark)
        let path = "/unsafe/wm:1:ce/plain/\(origin.url("/files/geometry.png").absoluteString)@png"
        func centre(_ extra: [String]) async throws -> [UInt8] {
            let proxy = try ImgproxyCompatTests.start(origin, ["--watermark", mark.path] + extra)
            let image = try Self.decode(try await HTTP.get(proxy.url(path))).convertedToRGBA8()
            return Array(image.pixels[(50 * 200 + 100) * 4..<(50 * 200 + 100) * 4 + 3])
        }
        #expect(try await centre([]) == [255, 0, 0], "opacity 1: the mark as it is")
        // The source there is (100, 100, 0): half of each.
        let half = try await centre(["--watermark-opacity", "0.5"])
        #expect(abs(Int(half[0]) - 178) <= 2 && abs(Int(half[1]) - 50) <= 2 && half[2] == 0, "\(half)")
    }

    @Test func autoRotateOffIsTheDefaultAURLOverrides() async throws {
        let origin = try NginxServer(tls: false, files: ["rotated.jpg": try ProxyMetadataTests.source(orientation: 6)])
        let proxy = try ProxyProcess(["--compat", "imgproxy", "--allow-origin", origin.prefix, "--no-auto-rotate"])
        let source = origin.url("rotated.jpg").absoluteString
        for (options, width, height) in [("rs:fit:300:300", 300, 200), ("rs:fit:300:300/ar:1", 200, 300)] {
            let image = try Self.decode(try await HTTP.get(proxy.url("/unsafe/\(options)/plain/\(source)@jpg")))
            #expect(image.width == width && image.height == height, "\(options): \(image.width)x\(image.height)")
        }
    }
}
