import CoderPNG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// `/gallery` in `--compat imgproxy`: its links are imgproxy URLs, signed as the service checks
/// them (a truncated signature here), and every one of them answers an image.
@Suite("imgproxy compat: the gallery's links")
struct ImgproxyGalleryTests {
    @Test func everyLinkOfTheGalleryIsAnImgproxyURLThatAnswersAnImage() async throws {
        let origin = try ImgproxyCompatTests.origin()
        let png = origin.url("/files/geometry.png").absoluteString
        origin.addFile("gallery.txt", data: Data("# one source\n\(png)\n".utf8))
        let mark = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-mark-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: mark) }
        let markImage = try Image(width: 20, height: 20, pixelFormat: .rgba8, pixels: [UInt8](repeating: 200, count: 20 * 20 * 4))
        try PNGCoder().encode(markImage, as: .png, options: EncodeOptions()).write(to: mark)
        let proxy = try ImgproxyCompatTests.start(origin, ["--key", "736563726574", "--salt", "68656c6c6f", "--signature-size", "8", "--watermark", mark.path])
        let page = try await HTTP.get(proxy.url("/gallery?list=" + origin.url("/files/gallery.txt").absoluteString))
        #expect(page.status == 200)
        let html = String(decoding: page.body, as: UTF8.self)
        let links = html.components(separatedBy: "<img src=\"").dropFirst().compactMap { $0.components(separatedBy: "\"").first }
            .map { $0.replacingOccurrences(of: "&amp;", with: "&") }
        #expect(links.count == 9, "one source and 8 steps (the watermark's included): \(links)")
        for link in links {
            #expect(link.contains("/plain/") && !link.hasPrefix("/unsafe/") && !link.contains("resize:fill"), "\(link)")
            let image = try await HTTP.get(proxy.url(link))
            #expect(image.status == 200, "\(link): \(image.status) \(String(decoding: image.body.prefix(200), as: UTF8.self))")
            #expect(image.header("Content-Type")?.hasPrefix("image/") == true, "\(link)")
        }
    }
}
