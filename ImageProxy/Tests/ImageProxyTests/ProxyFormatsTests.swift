import CoderBMP
import CoderJPEG
import CoderJXL
import CoderPNG
import CoderSVG
import CoderTIFF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// TIFF, BMP and ICO through the running proxy: read as sources, answered in a format browsers
/// show unless the request names one, and written when it does.
@Suite("image-proxy: TIFF, BMP and ICO sources and outputs", .serialized)
struct ProxyFormatsTests {
    static let coders = CoderRegistry([JPEGCoder(), PNGCoder(), TIFFCoder(), BMPCoder(pngCoder: PNGCoder()), JXLCoder(), SVGCoder()])

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

    @Test func jpegXLIsReadWrittenAndNegotiatedAfterAVIFAndWebP() async throws {
        let photo = try JPEGCoder().decode(try Origin.example("photo.jpg"), options: DecodeOptions())
        let jxl = try JXLCoder().encode(photo, as: .jxl, options: EncodeOptions(quality: 0.9))
        let origin = try NginxServer(tls: false, files: ["photo.jxl": jxl])
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let path = Paths.plain(origin.url("photo.jxl"), spec: "resize:fit:100:100")
        // No Accept: a JPEG XL source is answered as JPEG (browsers without JXL are the rule).
        let plain = try await HTTP.get(proxy.url(path))
        #expect(plain.status == 200, "\(String(decoding: plain.body.prefix(300), as: UTF8.self))")
        #expect(plain.header("content-type") == "image/jpeg")
        let served = try decode(plain.body)
        #expect(max(served.width, served.height) == 100)
        for (accept, mediaType) in [("image/jxl,*/*", "image/jxl"), ("image/jxl,image/webp", "image/webp"), ("image/jxl,image/avif,image/webp", "image/avif")] {
            let response = try await HTTP.get(proxy.url(path), headers: ["Accept": accept])
            #expect(response.status == 200)
            #expect(response.header("content-type") == mediaType, "Accept: \(accept)")
            #expect(response.header("vary") == "Accept")
        }
        let named = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jxl"), spec: "resize:fit:100:100", format: "jxl")))
        #expect(named.header("content-type") == "image/jxl")
        #expect(ImageFormat.sniff(named.body) == .jxl)
        let decoded = try decode(named.body)
        #expect(max(decoded.width, decoded.height) == 100)
        #expect(meanDifference(decoded, served) < 8, "the JXL and JPEG renders of one source agree (two lossy encodes at their default qualities)")
    }

    @Test func anSVGSourceIsRasterisedAtTheResizeBoxNeverPassedThrough() async throws {
        // A 100000x100000 canvas: drawn at the box (the coder renders straight at the size the
        // resize asks for); without a resize it is over the pixel limit and refused.
        let svg = Data("""
        <svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000" viewBox="0 0 100 100">
        <rect width="100" height="100" fill="#ff0000"/><circle cx="50" cy="50" r="25" fill="#0000ff"/></svg>
        """.utf8)
        let origin = try NginxServer(tls: false, files: ["huge.svg": svg])
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let response = try await HTTP.get(proxy.url(Paths.plain(origin.url("huge.svg"), spec: "resize:fit:300:300")))
        #expect(response.status == 200, "\(String(decoding: response.body.prefix(300), as: UTF8.self))")
        #expect(response.header("content-type") == "image/png", "rasterised, with its alpha")
        let image = try decode(response.body).convertedToRGBA8()
        #expect(image.width == 300 && image.height == 300)
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(image.pixels[(y * image.width + x) * 4..<(y * image.width + x) * 4 + 4]) }
        #expect(pixel(10, 10) == [255, 0, 0, 255] && pixel(150, 150) == [0, 0, 255, 255])
        let unbounded = try await HTTP.get(proxy.url(Paths.plain(origin.url("huge.svg"))))
        #expect((400..<500).contains(unbounded.status), "\(unbounded.status)")
        let asSVG = try await HTTP.get(proxy.url(Paths.plain(origin.url("huge.svg"), spec: "resize:fit:300:300", format: "svg")))
        #expect(asSVG.status == 415, "never passed through")
    }

    /// A vector source is drawn at the box it is resized to, larger than its own size too, as
    /// imgproxy draws vector sources whatever `enlarge` says: a 200x100 icon fit into 800x800 is
    /// 800x400 (it was 200x100), filled into 300x300 is 300x300, and a raster is never enlarged.
    @Test func anSVGSourceIsDrawnAtABoxLargerThanItsOwnSize() async throws {
        let icon = Data("""
        <svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="100" height="100" fill="#ff0000"/>\
        <rect x="100" width="100" height="100" fill="#0000ff"/></svg>
        """.utf8)
        let origin = try NginxServer(tls: false, files: ["icon.svg": icon, "photo.jpg": try TestData.data("exif-orientation/recurser/Landscape_0.jpg")])
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let fit = try await HTTP.get(proxy.url(Paths.plain(origin.url("icon.svg"), spec: "resize:fit:800:800")))
        #expect(fit.status == 200, "\(String(decoding: fit.body.prefix(300), as: UTF8.self))")
        let image = try decode(fit.body).convertedToRGBA8()
        #expect(image.width == 800 && image.height == 400)
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(image.pixels[(y * image.width + x) * 4..<(y * image.width + x) * 4 + 4]) }
        #expect(pixel(398, 200) == [255, 0, 0, 255] && pixel(401, 200) == [0, 0, 255, 255], "drawn sharp at the box, not scaled up")
        let fill = try await HTTP.get(proxy.url(Paths.plain(origin.url("icon.svg"), spec: "resize:fill:300:300")))
        let filled = try decode(fill.body)
        #expect(filled.width == 300 && filled.height == 300)
        let photo = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:2000:2000")))
        let raster = try decode(photo.body)
        #expect(max(raster.width, raster.height) < 2000, "a raster source is not enlarged")
    }

    private func meanDifference(_ a: Image, _ b: Image) -> Double {
        let x = a.convertedToRGBA8(), y = b.convertedToRGBA8()
        guard x.pixels.count == y.pixels.count, !x.pixels.isEmpty else { return .infinity }
        var total = 0
        for i in 0..<x.pixels.count { total += abs(Int(x.pixels[i]) - Int(y.pixels[i])) }
        return Double(total) / Double(x.pixels.count)
    }
}
