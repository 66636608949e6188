import CoderJPEG
import CoderPNG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// `image-proxy --compat imgproxy` through the running service and a real origin: imgproxy's own
/// result-size tables on its 200x100 test image, its answers to bad paths (status and body), the
/// signing example of its documentation, and the output format it picks.
@Suite("imgproxy compat: the running service", .serialized)
struct ImgproxyCompatTests {
    /// A 200x100 opaque PNG (imgproxy's `geometry.png` is 200x100) and a JPEG of it, on an origin.
    static func origin() throws -> HTTPTestServer {
        var pixels = [UInt8](repeating: 0, count: 200 * 100 * 3)
        for y in 0..<100 { for x in 0..<200 { pixels[(y * 200 + x) * 3] = UInt8(x); pixels[(y * 200 + x) * 3 + 1] = UInt8(y * 2) } }
        let image = try Image(width: 200, height: 100, pixelFormat: .rgb8, pixels: pixels)
        let server = try HTTPTestServer()
        server.addFile("geometry.png", data: try PNGCoder().encode(image, as: .png, options: EncodeOptions()))
        server.addFile("geometry.jpg", data: try JPEGCoder().encode(image, as: .jpeg, options: EncodeOptions()))
        server.addFile("notes.txt", data: Data("not an image\n".utf8))
        return server
    }

    static func start(_ origin: HTTPTestServer, _ extra: [String] = []) throws -> ProxyProcess {
        try ProxyProcess(["--compat", "imgproxy", "--allow-origin", origin.baseURL.absoluteString + "/"] + extra)
    }

    static func size(_ response: HTTP.Response) throws -> (Int, Int) {
        let image = try CoderRegistry([PNGCoder(), JPEGCoder()]).decode(response.body, options: DecodeOptions())
        return (image.width, image.height)
    }

    @Test func imgproxysResizeTablesGiveImgproxysSizes() async throws {
        let origin = try Self.origin()
        let proxy = try Self.start(origin)
        // The PNG goes through the RGB path; the JPEG, where the options are a plain resize,
        // through the planar one (``ImgproxyTransformer/equivalentResize(width:height:)``).
        for (test, file) in ImgproxySizeTables.all.flatMap({ test in ["geometry.png", "geometry.jpg"].map { (test, $0) } }) {
            let source = origin.url("/files/" + file).absoluteString
            let response = try await HTTP.get(proxy.url("/unsafe/\(test.options)/plain/\(source)"))
            #expect(response.status == 200, "\(test): \(String(decoding: response.body.prefix(200), as: UTF8.self))")
            guard response.status == 200 else { continue }
            let (width, height) = try Self.size(response)
            #expect(width == test.outWidth && height == test.outHeight, "\(test) \(file): got \(width)x\(height)")
        }
    }

    @Test func imgproxysResultLimitTableGivesImgproxysSizes() async throws {
        let origin = try Self.origin()
        let proxy = try Self.start(origin, ["--allow-security-options"])
        let source = origin.url("/files/geometry.png").absoluteString
        for (options, outWidth, outHeight) in ImgproxySizeTables.limits {
            let response = try await HTTP.get(proxy.url("/unsafe/\(options)/plain/\(source)"))
            #expect(response.status == 200, "\(options)")
            guard response.status == 200 else { continue }
            let (width, height) = try Self.size(response)
            #expect(width == outWidth && height == outHeight, "\(options) → \(outWidth)x\(outHeight): got \(width)x\(height)")
        }
    }

    /// dpr, zoom, min-width/height, crop, padding, rotate: sizes worked out from imgproxy's
    /// `CalcParams` by hand, on the 200x100 source (a width with a larger min-width is cropped
    /// to the width, as imgproxy's documentation says).
    @Test(arguments: [
        ("rs:fit:50:50/dpr:2", 100, 50), ("rs:fit:150:150/dpr:2", 200, 100), ("rs:fit:150:150/dpr:2/el:1", 300, 150),
        ("w:50/z:2", 100, 50), ("w:50/z:2:1", 100, 25), ("w:50/mw:80", 50, 40), ("h:10/mh:40", 80, 10), ("mw:300", 300, 150),
        ("c:100:50", 100, 50), ("c:0.5:0.5/w:50", 50, 25), ("c:100:50:nowe/rs:fill:20:20", 20, 20), ("pd:10", 220, 120),
        ("pd:1:2:3:4/dpr:2", 206, 104), ("pd:1:2:3:4/dpr:2/el:1", 412, 208), ("rot:90", 100, 200), ("rot:270/w:50", 50, 100), ("rs:force:30:80", 30, 80),
        ("rs:auto:100:20", 100, 20), ("rs:auto:20:100", 20, 10), ("g:sm/rs:fill:60:60", 60, 60), ("g:fp:0.1:0.9/rs:fill:30:60", 30, 60),
        ("ex:1:soea:5:5/s:300:300", 300, 300), ("t:10/w:100", 100, 50), ("pix:8/bl:1/sh:1/w:100", 100, 50), ("fl:1:1/w:100", 100, 50),
        ("bg:ff0000/pd:5", 210, 110), ("ar:0/w:40", 40, 20),
    ])
    func optionsGiveImgproxysSizes(options: String, width: Int, height: Int) async throws {
        let origin = try Self.origin()
        let proxy = try Self.start(origin)
        let response = try await HTTP.get(proxy.url("/unsafe/\(options)/plain/\(origin.url("/files/geometry.png").absoluteString)@png"))
        #expect(response.status == 200, "\(options): \(String(decoding: response.body.prefix(200), as: UTF8.self))")
        let (w, h) = try Self.size(response)
        #expect(w == width && h == height, "\(options): \(w)x\(h)")
    }

    /// Sizes, factors and offsets far past anything renderable are a 4xx answer, and the service
    /// keeps answering: `w:9223372036854775807` used to trap in the size arithmetic and stop it.
    @Test func hostileSizesAreRefusedAndTheServiceStaysUp() async throws {
        let origin = try Self.origin()
        let proxy = try Self.start(origin)
        let huge = "9223372036854775807"
        let hostile = [
            "rs:fit:\(huge):1/el:1", "rs:fill:\(huge):\(huge)/el:1", "w:\(huge)/el:1", "h:\(huge)/el:1/ex:1", "mw:\(huge)", "mh:\(huge)",
            "z:1e308/el:1", "z:1e-308", "dpr:1e300/rs:fit:10:10", "dpr:1e300/pd:5", "pd:\(huge)", "pd:1:\(huge):1:\(huge)",
            "c:\(huge):\(huge)", "c:1e300:1e300", "g:nowe:1e300:1e300/c:10:10", "g:fp:1e300:-1e300/rs:fill:10:10", "bl:1e300", "sh:1e300",
            "pix:\(huge)", "rs:fit:100:100/ex:1/exar:1/dpr:1e300", "s:\(huge):\(huge):1:1", "rs:force:\(huge):1",
        ]
        for jpeg in [false, true] {
            let source = origin.url(jpeg ? "/files/geometry.jpg" : "/files/geometry.png").absoluteString
            for options in hostile {
                let response = try await HTTP.get(proxy.url("/unsafe/\(options)/plain/\(source)@png"))
                #expect(response.status == 200 || (400..<500).contains(response.status), "\(options) on \(source): \(response.status)")
            }
        }
        let after = try await HTTP.get(proxy.url("/unsafe/w:20/plain/\(origin.url("/files/geometry.png").absoluteString)@png"))
        #expect(after.status == 200)
        #expect(try Self.size(after) == (20, 10))
    }

    /// A vector source is drawn at the size imgproxy's geometry scales it to, enlarged whatever
    /// `enlarge` says (as imgproxy draws SVG at its scale), not drawn small and scaled up: a
    /// 200x100 icon fit into 800x800 is 800x400 with its edge sharp; with dpr and fill the sizes
    /// are imgproxy's; a crop keeps the intrinsic drawing (sizes still imgproxy's).
    @Test func anSVGSourceIsDrawnAtTheScaleImgproxyComputes() async throws {
        let origin = try Self.origin()
        origin.addFile("icon.svg", data: Data("""
        <svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="100" height="100" fill="#ff0000"/>\
        <rect x="100" width="100" height="100" fill="#0000ff"/></svg>
        """.utf8))
        let proxy = try Self.start(origin)
        let source = origin.url("/files/icon.svg").absoluteString
        let fit = try await HTTP.get(proxy.url("/unsafe/rs:fit:800:800/plain/\(source)@png"))
        #expect(fit.status == 200, "\(String(decoding: fit.body.prefix(300), as: UTF8.self))")
        let image = try CoderRegistry([PNGCoder()]).decode(fit.body, options: DecodeOptions()).convertedToRGBA8()
        #expect(image.width == 800 && image.height == 400)
        func pixel(_ x: Int, _ y: Int) -> [UInt8] { Array(image.pixels[(y * image.width + x) * 4..<(y * image.width + x) * 4 + 4]) }
        #expect(pixel(398, 200) == [255, 0, 0, 255] && pixel(401, 200) == [0, 0, 255, 255], "drawn sharp at the scale, not scaled up")
        for (options, width, height) in [("rs:fill:300:300", 300, 300), ("w:300/dpr:2", 600, 300), ("rs:fit:50:50", 50, 25), ("c:100:100/w:400", 400, 400)] {
            let response = try await HTTP.get(proxy.url("/unsafe/\(options)/plain/\(source)@png"))
            #expect(response.status == 200, "\(options)")
            let (w, h) = try Self.size(response)
            #expect(w == width && h == height, "\(options): \(w)x\(h)")
        }
    }

    @Test func badRequestsAreAnsweredAsImgproxyAnswersThem() async throws {
        let origin = try Self.origin()
        let proxy = try Self.start(origin, ["--key", "736563726574", "--salt", "68656C6C6F", "--key", "aa", "--salt", "bb"])
        let source = origin.url("/files/geometry.png").absoluteString
        func get(_ path: String) async throws -> (Int, String, String?) {
            let response = try await HTTP.get(proxy.url(path))
            return (response.status, String(decoding: response.body, as: UTF8.self), response.header("Content-Type"))
        }
        let signed = { (rest: String, key: String, salt: String) in "/" + Paths.sign(rest, key: key, salt: salt) + rest }
        // A good signature of either pair.
        #expect(try await get(signed("/w:20/plain/\(source)", "736563726574", "68656C6C6F")).0 == 200)
        #expect(try await get(signed("/w:20/plain/\(source)", "aa", "bb")).0 == 200)
        // imgproxy's answers: 403 Forbidden, 404 Invalid URL, 404 Invalid source URL, 422.
        let forbidden = try await get("/unsafe/w:20/plain/\(source)")
        #expect(forbidden.0 == 403 && forbidden.1 == "Forbidden" && forbidden.2 == "text/plain")
        let tampered = try await get(signed("/w:20/plain/\(source)", "736563726574", "68656C6C6F").replacingOccurrences(of: "/w:20/", with: "/w:21/"))
        #expect(tampered.0 == 403 && tampered.1 == "Forbidden")
        let unknown = try await get(signed("/nope:1/plain/\(source)", "aa", "bb"))
        #expect(unknown.0 == 404 && unknown.1 == "Invalid URL")
        let elsewhere = try await get(signed("/w:20/plain/http://127.0.0.2:1/x.png", "aa", "bb"))
        #expect(elsewhere.0 == 404 && elsewhere.1 == "Invalid source URL")
        let text = try await get(signed("/w:20/plain/\(origin.url("/files/notes.txt").absoluteString)", "aa", "bb"))
        #expect(text.0 == 422 || text.0 == 415, "\(text)")
        // The docs' example passes the signature check (then its source is not allowed here).
        let docs = try await get("/oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png")
        #expect(docs.0 == 404 && docs.1 == "Invalid source URL")
    }

    @Test func theFormatFollowsTheURLThenAcceptThenImgproxysPreferredFormats() async throws {
        let origin = try Self.origin()
        let proxy = try Self.start(origin, ["--auto-webp"])
        let png = origin.url("/files/geometry.png").absoluteString
        let encoded = ProxyRequest64.encode(png)
        var response = try await HTTP.get(proxy.url("/unsafe/w:20/\(encoded).jpg"))
        #expect(response.header("Content-Type") == "image/jpeg")
        response = try await HTTP.get(proxy.url("/unsafe/w:20/plain/\(png)"), headers: ["Accept": "image/webp,*/*"])
        #expect(response.header("Content-Type") == "image/webp")
        response = try await HTTP.get(proxy.url("/unsafe/w:20/plain/\(png)"))
        #expect(response.header("Content-Type") == "image/png")
        response = try await HTTP.get(proxy.url("/unsafe/w:20/f:jpg/plain/\(png)"), headers: ["Accept": "image/webp"])
        #expect(response.header("Content-Type") == "image/jpeg", "auto-webp does not override a format the URL names")
        let enforced = try Self.start(origin, ["--enforce-webp"])
        response = try await HTTP.get(enforced.url("/unsafe/w:20/f:jpg/plain/\(png)"), headers: ["Accept": "image/webp"])
        #expect(response.header("Content-Type") == "image/webp", "enforce-webp does")
        response = try await HTTP.get(proxy.url("/unsafe/w:20/fn:cat/att:1/plain/\(png)@png"))
        #expect(response.header("Content-Disposition")?.hasPrefix("attachment; filename=\"cat.png\"") == true, "\(response.headers)")
    }

    @Test func theNativeGrammarIsNotReadInCompatModeNorImgproxysInNativeMode() async throws {
        let origin = try Self.origin()
        let compat = try Self.start(origin)
        let source = origin.url("/files/geometry.png").absoluteString
        #expect(try await HTTP.get(compat.url("/unsafe/round:12/plain/\(source)")).status == 404)
        let native = try ProxyProcess(["--allow-origin", origin.baseURL.absoluteString + "/"])
        #expect(try await HTTP.get(native.url("/unsafe/rs:fit:50:50/plain/\(source)")).status == 400)
    }
}

/// Base64url without padding, as imgproxy's clients write sources.
enum ProxyRequest64 {
    static func encode(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
