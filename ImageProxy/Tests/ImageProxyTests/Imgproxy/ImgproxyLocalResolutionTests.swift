import CoderPNG
import Foundation
import ImageKernel
import Testing

/// imgproxy's `TestImageResolutionTooLarge` (`processing/processing_test.go`, v4), ported as it
/// is: `max_src_resolution:0.00001` on its 200x100 `local:///geometry.png` answers 422.
@Suite("imgproxy compat: a local source over the URL's resolution limit")
struct ImgproxyLocalResolutionTests {
    @Test func aSourceOverMaxSrcResolutionIsRefusedWith422() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imgproxy-local-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let image = try Image(width: 200, height: 100, pixelFormat: .rgb8, pixels: [UInt8](repeating: 90, count: 200 * 100 * 3))
        try PNGCoder().encode(image, as: .png, options: EncodeOptions()).write(to: root.appendingPathComponent("geometry.png"))
        let proxy = try ProxyProcess(["--compat", "imgproxy", "--allow-origin", "http://127.0.0.1:9/", "--local-root", root.path, "--allow-security-options"])
        let refused = try await HTTP.get(proxy.url("/unsafe/max_src_resolution:0.00001/plain/local:///geometry.png"))
        #expect(refused.status == 422, "\(refused.status) \(String(decoding: refused.body, as: UTF8.self))")
        #expect(String(decoding: refused.body, as: UTF8.self) == "Invalid source image")
        let served = try await HTTP.get(proxy.url("/unsafe/max_src_resolution:0.02/plain/local:///geometry.png"))
        #expect(served.status == 200, "20000 pixels are allowed")
    }
}
