import CoderGIF
import CoderJPEG
import CoderWebP
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// imgproxy's output format for animations and its `format_quality` through the running service
/// in `--compat imgproxy`: AVIF and JPEG XL are offered for stills only (imgproxy's
/// `determineOutputFormat` skips them for an animated result), and a format settled at render
/// time takes the URL's `format_quality` for it.
@Suite("imgproxy compat: formats of animated results, late format quality", .serialized)
struct ImgproxyAnimatedFormatTests {
    static let chi = "gif/pillow/chi.gif"  // 320x240, 31 frames

    static func origin() throws -> HTTPTestServer {
        let server = try ImgproxyCompatTests.origin()
        server.addFile("chi.gif", data: try TestData.data(chi))
        return server
    }

    @Test("an animation kept by maf skips auto AVIF and JPEG XL for WebP or its own format; a still takes them")
    func animatedResultsSkipAVIFAndJPEGXL() async throws {
        let origin = try Self.origin()
        let source = origin.url("/files/chi.gif").absoluteString
        let everything = "image/jxl,image/avif,image/webp,*/*"
        let all = try ImgproxyCompatTests.start(origin, ["--auto-jxl", "--auto-avif", "--auto-webp", "--max-animation-frames", "5", "--allow-security-options"])
        var response = try await HTTP.get(all.url("/unsafe/w:80/plain/\(source)"), headers: ["Accept": everything])
        #expect(response.status == 200 && response.header("Content-Type") == "image/webp", "\(response.status) \(response.headers)")
        #expect(try WebPCoder().decode(response.body, options: DecodeOptions()).frameCount == 5)
        // A still (maf:1) takes JPEG XL, the first the client accepts.
        response = try await HTTP.get(all.url("/unsafe/w:80/maf:1/plain/\(source)"), headers: ["Accept": everything])
        #expect(response.header("Content-Type") == "image/jxl")
        // Without WebP on offer, the animation keeps its own format (GIF is a preferred one).
        let noWebP = try ImgproxyCompatTests.start(origin, ["--auto-avif", "--enforce-jxl", "--max-animation-frames", "5", "--allow-security-options"])
        response = try await HTTP.get(noWebP.url("/unsafe/w:80/plain/\(source)"), headers: ["Accept": everything])
        #expect(response.header("Content-Type") == "image/gif")
        #expect(try GIFCoder().decode(response.body, options: DecodeOptions()).frameCount == 5)
        // `enforce_jxl` over a format the URL names: a still is JPEG XL, an animation keeps the URL's.
        response = try await HTTP.get(noWebP.url("/unsafe/w:80/plain/\(source)@webp"), headers: ["Accept": everything])
        #expect(response.header("Content-Type") == "image/webp")
        #expect(try WebPCoder().decode(response.body, options: DecodeOptions()).frameCount == 5)
        response = try await HTTP.get(noWebP.url("/unsafe/w:80/maf:1/plain/\(source)@webp"), headers: ["Accept": everything])
        #expect(response.header("Content-Type") == "image/jxl")
    }

    @Test("format_quality applies to a format settled at render time")
    func formatQualityReachesAFormatChosenAtRenderTime() async throws {
        let origin = try Self.origin()
        let proxy = try ImgproxyCompatTests.start(origin)
        let source = origin.url("/files/geometry.jpg").absoluteString
        func size(_ options: String) async throws -> Int {
            let response = try await HTTP.get(proxy.url("/unsafe/\(options)/plain/\(source)"))
            #expect(response.status == 200 && response.header("Content-Type") == "image/jpeg", "\(options): \(response.status)")
            return response.body.count
        }
        let low = try await size("w:150/fq:jpeg:5"), high = try await size("w:150/fq:jpeg:98")
        #expect(low * 2 < high, "fq:jpeg:5 gave \(low) bytes, fq:jpeg:98 \(high)")
        #expect(try await size("w:150/fq:png:5") == (try await size("w:150")), "a quality for another format changes nothing")
        #expect(try await size("w:150/q:98/fq:jpeg:5") == high, "quality wins over format_quality")
    }
}
