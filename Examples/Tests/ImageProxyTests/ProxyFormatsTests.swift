import CoderBMP
import CoderJPEG
import CoderPNG
import CoderTIFF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// TIFF, BMP and ICO through the running proxy: read as sources, answered in a format browsers
/// show unless the request names one, and written when it does.
@Suite("image-proxy: TIFF, BMP and ICO sources and outputs", .serialized)
struct ProxyFormatsTests {
    static let coders = CoderRegistry([JPEGCoder(), PNGCoder(), TIFFCoder(), BMPCoder(pngCoder: PNGCoder())])

    func decode(_ data: Data) throws -> Image { try Self.coders.decode(data) }

    @Test(arguments: [
        ("scan.tif", "image/jpeg"),  // no alpha: JPEG
        ("paletted.bmp", "image/jpeg"),
        ("favicon.ico", "image/png"),  // ICO entries have alpha: PNG
    ])
    func aSourceInANonWebFormatIsAnsweredInOneBrowsersShow(name: String, mediaType: String) async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let source = try decode(try Data(contentsOf: origin.directory.appendingPathComponent("www/\(name)")))
        let box = max(source.width, source.height) / 2
        let response = try await HTTP.get(proxy.url(Paths.plain(origin.url(name), spec: "resize:fit:\(box):\(box)")))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        #expect(response.header("content-type") == mediaType)
        let served = try decode(response.body)
        #expect(max(served.width, served.height) == box, "\(served.width)x\(served.height) for \(source.width)x\(source.height)")
    }

    @Test(arguments: [("tiff", "image/tiff"), ("bmp", "image/bmp"), ("ico", "image/x-icon")])
    func eachNewFormatIsWrittenWhenTheRequestNamesIt(format: String, mediaType: String) async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let response = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:64:64", format: format)))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        #expect(response.header("content-type") == mediaType)
        #expect(ImageFormat.sniff(response.body).rawValue == format)
        let served = try decode(response.body)
        #expect(max(served.width, served.height) == 64, "\(served.width)x\(served.height)")
        // Compared with the same render as PNG (lossless): the new encoders are lossless too.
        let png = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:64:64", format: "png")))
        let reference = try decode(png.body)
        #expect(served.width == reference.width && served.height == reference.height)
        #expect(meanDifference(served, reference) < 0.01, "\(format) differs from the PNG render")
    }

    @Test func aFormatNoCoderWritesIsRefusedWithTheList() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let response = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:64:64", format: "svg")))
        #expect(response.status == 415)
        let unknown = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:64:64", format: "xyz")))
        #expect(unknown.status == 415)
        #expect(String(decoding: unknown.body, as: UTF8.self).contains("tiff, bmp, ico"))
    }

    private func meanDifference(_ a: Image, _ b: Image) -> Double {
        let x = a.convertedToRGBA8(), y = b.convertedToRGBA8()
        guard x.pixels.count == y.pixels.count, !x.pixels.isEmpty else { return .infinity }
        var total = 0
        for i in 0..<x.pixels.count { total += abs(Int(x.pixels[i]) - Int(y.pixels[i])) }
        return Double(total) / Double(x.pixels.count)
    }
}
