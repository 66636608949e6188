import CoderJPEG
import CoderJXL
import CoderPNG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// imgproxy's client features and URL settings through the running service in `--compat
/// imgproxy`: client hints (`--enable-client-hints`), JPEG XL negotiation (`--auto-jxl`,
/// `--enforce-jxl`), `--url-replacement` and `--base64-url-includes-filename`.
@Suite("imgproxy compat: client hints, JPEG XL, URL replacements", .serialized)
struct ImgproxyClientFeaturesTests {
    static func decode(_ response: HTTP.Response) throws -> Image {
        try CoderRegistry([PNGCoder(), JPEGCoder(), JXLCoder()]).decode(response.body, options: DecodeOptions())
    }

    @Test func clientHintsSetTheWidthAndDPRAndAnswersVaryOnThem() async throws {
        let origin = try ImgproxyCompatTests.origin()
        let proxy = try ImgproxyCompatTests.start(origin, ["--enable-client-hints"])
        let path = "/unsafe/rt:fit/plain/\(origin.url("/files/geometry.png").absoluteString)@png"
        let cases: [([String: String], Int)] = [
            ([:], 200), (["Width": "120"], 120), (["DPR": "2", "Width": "120"], 120), (["Sec-CH-DPR": "2", "Sec-CH-Width": "60"], 60),
            (["DPR": "0.5"], 100), (["DPR": "9", "Width": "80"], 80), (["Width": "120"], 120),
        ]
        // Twice over: the second round is answered from memory (the hot path), and must still
        // tell the requests apart by their hints.
        for round in 0..<2 {
            for (headers, width) in cases {
                let response = try await HTTP.get(proxy.url(path), headers: headers)
                #expect(response.status == 200)
                guard response.status == 200 else { continue }
                #expect(try Self.decode(response).width == width, "round \(round), \(headers)")
                #expect(response.header("Vary") == "Sec-Ch-Dpr, Dpr, Sec-Ch-Width, Width", "\(response.headers)")
            }
        }
        // A DPR of 2 with the URL's own width: the width times the DPR, as imgproxy.
        let doubled = try await HTTP.get(proxy.url("/unsafe/w:50/plain/\(origin.url("/files/geometry.png").absoluteString)@png"), headers: ["DPR": "2"])
        #expect(try Self.decode(doubled).width == 100)
        let off = try ImgproxyCompatTests.start(origin)
        let plain = try await HTTP.get(off.url(path), headers: ["DPR": "2", "Width": "60"])
        #expect(try Self.decode(plain).width == 200, "hints count only with --enable-client-hints")
        #expect(plain.header("Vary") == nil)
    }

    @Test func jpegXLIsAnsweredToClientsThatAcceptItBeforeAVIFAndWebP() async throws {
        let origin = try ImgproxyCompatTests.origin()
        let png = origin.url("/files/geometry.png").absoluteString
        let auto = try ImgproxyCompatTests.start(origin, ["--auto-jxl", "--auto-webp"])
        var response = try await HTTP.get(auto.url("/unsafe/w:40/plain/\(png)"), headers: ["Accept": "image/jxl,image/webp,*/*"])
        #expect(response.header("Content-Type") == "image/jxl")
        #expect(try Self.decode(response).width == 40)
        #expect(response.header("Vary") == "Accept")
        response = try await HTTP.get(auto.url("/unsafe/w:40/plain/\(png)"), headers: ["Accept": "image/webp,*/*"])
        #expect(response.header("Content-Type") == "image/webp")
        response = try await HTTP.get(auto.url("/unsafe/w:40/plain/\(png)@png"), headers: ["Accept": "image/jxl"])
        #expect(response.header("Content-Type") == "image/png", "auto-jxl does not override a format the URL names")
        let enforced = try ImgproxyCompatTests.start(origin, ["--enforce-jxl"])
        response = try await HTTP.get(enforced.url("/unsafe/w:40/plain/\(png)@png"), headers: ["Accept": "image/jxl"])
        #expect(response.header("Content-Type") == "image/jxl", "enforce-jxl does")
        response = try await HTTP.get(enforced.url("/unsafe/w:40/plain/\(png)@png"))
        #expect(response.header("Content-Type") == "image/png", "only to clients that accept it")
    }

    @Test func urlReplacementsAndBase64FileNamesReachTheOrigin() async throws {
        let origin = try ImgproxyCompatTests.origin()
        let files = origin.url("/files/").absoluteString
        let proxy = try ImgproxyCompatTests.start(origin, ["--url-replacement", "images:*/*=\(files)$1.$2"])
        var response = try await HTTP.get(proxy.url("/unsafe/w:30/plain/images:geometry/png@png"))
        #expect(response.status == 200, "images:geometry/png is \(files)geometry.png")
        response = try await HTTP.get(proxy.url("/unsafe/w:30/plain/images:geometry/jpg@png"))
        #expect(response.status == 200, "and images:geometry/jpg is geometry.jpg")
        response = try await HTTP.get(proxy.url("/unsafe/w:30/plain/images:nothing/png@png"))
        #expect(response.status != 200, "nothing.png is not on the origin: \(response.status)")
        let renamed = try ImgproxyCompatTests.start(origin, ["--url-replacement", "images://=\(files)", "--base64-url-includes-filename"])
        response = try await HTTP.get(renamed.url("/unsafe/w:30/plain/images:/geometry.png@png"))
        #expect(response.status == 200)
        #expect(try Self.decode(response).width == 30)
        let encoded = ProxyRequest64.encode("images://geometry.png")
        response = try await HTTP.get(renamed.url("/unsafe/w:30/\(encoded).png/my-puppy.jpg"))
        #expect(response.status == 200 && response.header("Content-Type") == "image/png", "\(response.status)")
    }
}
