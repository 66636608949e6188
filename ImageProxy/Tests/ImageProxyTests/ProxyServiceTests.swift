import Foundation
import ImageKernelTestSupport
import CoderJPEG
import CoderPNG
import ImageKernel
import Testing
import Transformers

/// Request-level tests: a real `image-proxy` process in front of a real nginx origin on 127.0.0.1.
@Suite("image-proxy routes and errors", .serialized)
struct ProxyServiceTests {
    @Test func resizesAJPEGAndSaysSoInTheHeaders() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let response = try await HTTP.get(proxy.url(Paths.plain(origin.url("large.jpg"), spec: "resize:fill:300:200/q:80")))
        #expect(response.status == 200)
        #expect(response.header("content-type") == "image/jpeg")
        #expect(response.header("content-length") == "\(response.body.count)")
        #expect(response.header("cache-control")?.hasPrefix("public, max-age=") == true)
        #expect(response.header("etag")?.hasPrefix("\"") == true)
        #expect(response.header("vary") == "Accept")
        let size = try JPEGSize(response.body)
        #expect(size.0 == 300 && size.1 == 200, "\(size)")
        #expect(proxy.log.contains("200 "), "one log line per request")
        #expect(proxy.log.contains(" origin GET /unsafe/resize:fill:300:200/q:80/plain/"))
    }

    @Test func aLargeJPEGShrinksOnLoadAndLooksLikeTheFullDecode() async throws {
        // 1800x1200 to fill 300x200: the proxy decodes at 2/8 (450x300), then resizes.
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let response = try await HTTP.get(proxy.url(Paths.plain(origin.url("large.jpg"), spec: "resize:fill:300:200/q:90", format: "png")))
        #expect(response.status == 200)
        let served = try PNGCoder().decode(response.body, options: DecodeOptions())
        let source = try TestData.data("exif-orientation/recurser/Landscape_0.jpg")
        let spec = try TransformSpec(parsing: "resize:fill:300:200")
        func render(_ options: DecodeOptions) throws -> Image {
            try spec.transform(try OrientTransformer().transform(try JPEGCoder().decode(source, options: options)))
        }
        let shrunk = try render(DecodeOptions(shrinkOnLoad: spec.shrinkOnLoad))
        let full = try render(DecodeOptions())
        #expect(served.width == 300 && served.height == 200 && served.pixelFormat == .rgb8)
        #expect(served.pixels == shrunk.pixels, "the proxy renders from the 2/8 decode")
        var total = 0
        for (a, b) in zip(served.pixels, full.pixels) { total += abs(Int(a) - Int(b)) }
        let mean = Double(total) / Double(full.pixels.count)
        #expect(mean < 2, "mean difference \(mean) from the full decode's render")
    }

    @Test func jpegToJPEGResizesRenderOnTheYCbCrPlanes() async throws {
        // JPEG in, a resize, JPEG out: no RGB in between (PlanarRender), at the 2/8 decode.
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let response = try await HTTP.get(proxy.url(Paths.plain(origin.url("large.jpg"), spec: "resize:fill:300:200/q:90", format: "jpg")))
        #expect(response.status == 200)
        #expect(response.header("content-type") == "image/jpeg")
        let source = try TestData.data("exif-orientation/recurser/Landscape_0.jpg")
        let resize = ResizeTransformer(.fill, width: 300, height: 200)
        let planes = try #require(try JPEGCoder().decodeYCbCr(source, options: DecodeOptions(shrinkOnLoad: resize.shrinkOnLoad)))
        let local = try JPEGCoder().encode(try resize.transform(planes, subsampling: .s420), options: EncodeOptions(quality: 0.9))
        #expect(response.body == local, "the proxy's bytes are the planar render's")
        // And it looks like the RGB path's result from the full decode (also a q90 JPEG).
        let served = try JPEGCoder().decode(response.body, options: DecodeOptions())
        let full = try resize.transform(try JPEGCoder().decode(source, options: DecodeOptions()))
        let fullJPEG = try JPEGCoder().decode(try JPEGCoder().encode(full, as: .jpeg, options: EncodeOptions(quality: 0.9)), options: DecodeOptions())
        var total = 0
        for (a, b) in zip(served.pixels, fullJPEG.pixels) { total += abs(Int(a) - Int(b)) }
        #expect(Double(total) / Double(full.pixels.count) < 3)  // two q90 encodings apart, and the 2/8 decode
        // A rotated JPEG is not taken by the planes (they are never rotated): it comes out upright.
        let rotated = try await HTTP.get(proxy.url(Paths.plain(origin.url(Origin.galleryName(12, "exif-orientation/recurser/Landscape_6.jpg")), spec: "resize:fill:300:200", format: "jpg")))
        #expect(rotated.status == 200)
        let rotatedSource = try TestData.data("exif-orientation/recurser/Landscape_6.jpg")
        let upright = try OrientTransformer().transform(try JPEGCoder().decode(rotatedSource, options: DecodeOptions(shrinkOnLoad: resize.shrinkOnLoad)))
        let rgbPath = try JPEGCoder().encode(try resize.transform(upright), as: .jpeg, options: EncodeOptions(quality: 0.8))
        #expect(rotated.body == rgbPath, "the RGB path's bytes, oriented")
        #expect(try JPEGCoder().decode(rotated.body, options: DecodeOptions()).width == 300)
    }

    @Test func base64PathsAndPlainPathsGiveTheSameResult() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let plain = try await HTTP.get(proxy.url(Paths.plain(origin.url("alpha.png"), spec: "resize:fit:64:64", format: "png")))
        let encoded = try await HTTP.get(proxy.url(Paths.encoded(origin.url("alpha.png"), spec: "resize:fit:64:64", ext: "png")))
        #expect(plain.status == 200 && encoded.status == 200)
        #expect(plain.header("content-type") == "image/png")
        #expect(plain.body == encoded.body)
        #expect(plain.header("etag") == encoded.header("etag"))
        #expect(plain.header("vary") == nil, "an explicit format is not negotiated")
    }

    @Test func healthMetricsAndUnknownRoutes() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        #expect(try await HTTP.get(proxy.url("/health")).status == 200)
        _ = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg"))))
        let metrics = try await HTTP.get(proxy.url("/metrics"))
        #expect(metrics.status == 200)
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(text.contains("imageproxy_requests_total{"), "\(text.prefix(500))")
        #expect(text.contains(#"status="200""#))
        let root = try await HTTP.get(proxy.url("/"))
        #expect(root.status == 404 && root.json["error"] == "not_found")
        let post = try await HTTP.get(proxy.url("/health"), method: "POST")
        #expect(post.status == 405)
    }

    @Test func signedServiceAcceptsItsSignaturesOnly() async throws {
        let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
        let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix, "--key", key, "--salt", salt])
        let good = Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:50:50", key: key, salt: salt)
        #expect(try await HTTP.get(proxy.url(good)).status == 200)
        let tampered = good.replacingOccurrences(of: "fit:50:50", with: "fit:51:50")
        let wrongKey = Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:50:50", key: salt, salt: key)
        let unsafe = Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:50:50")
        for path in [tampered, wrongKey, unsafe] {
            let response = try await HTTP.get(proxy.url(path))
            #expect(response.status == 403, "\(path)")
            #expect(response.json["error"] == "invalid_signature")
            #expect(response.header("content-type") == "application/json")
        }
        #expect(Origin.requests(origin, path: "/photo.jpg") == 1, "refused requests never reach the origin")
    }

    @Test func unsignedServiceRefusesSignatures() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let path = Paths.plain(origin.url("photo.jpg"), key: "00ff", salt: "00")
        #expect(try await HTTP.get(proxy.url(path)).status == 403)
        #expect(proxy.log.contains("unsafe"), "the service says at start that it runs without a key")
    }

    @Test func disallowedOriginsAndRedirectsOutAreRefused() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        // 127.0.0.2 is the same nginx on another loopback address: not an allowed prefix.
        let other = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg", address: "127.0.0.2"))))
        #expect(other.status == 403 && other.json["error"] == "origin_not_allowed")
        let lan = try await HTTP.get(proxy.url(Paths.plain(URL(string: "http://192.168.0.10/a.jpg")!)))
        #expect(lan.status == 403)
        let out = try await HTTP.get(proxy.url(Paths.plain(origin.url("redirect-outside"))))
        #expect(out.status == 403 && out.json["error"] == "origin_not_allowed", "\(out.json)")
        let inside = try await HTTP.get(proxy.url(Paths.plain(origin.url("redirect-inside"), spec: "resize:fit:40:40")))
        #expect(inside.status == 200)
        let loop = try await HTTP.get(proxy.url(Paths.plain(origin.url("redirect-loop"))))
        #expect(loop.status == 502)
        #expect(!origin.accessLog().contains { $0.hasPrefix("/photo.jpg") && $0.contains("127.0.0.2") })
        let served = origin.accessLog().filter { $0.hasPrefix("/photo.jpg ") }.count
        #expect(served == 1, "only the redirect inside the allowed origin was followed")
    }

    @Test func everyErrorHasItsStatusAndJSON() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix, "--max-source-mb", "1", "--max-source-megapixels", "1", "--source-timeout", "1"])
        let cases: [(String, Int, String)] = [
            (Paths.plain(origin.url("photo.jpg"), spec: "resize:fill:abc:10"), 400, "invalid_spec"),
            (Paths.plain(origin.url("photo.jpg"), spec: "warp:9"), 400, "invalid_spec"),
            ("/unsafe", 400, "invalid_path"),
            (Paths.plain(origin.url("missing.jpg")), 404, "http_status"),
            (Paths.plain(origin.url("error")), 502, "http_status"),
            (Paths.plain(origin.url("photo.jpg"), format: "tga"), 415, "unsupported"),
            (Paths.plain(origin.url("photo.jpg"), spec: "f:pdf"), 415, "unsupported"),
            (Paths.plain(origin.url("notes.txt")), 415, "no_coder"),
            (Paths.plain(origin.url("corrupt.png")), 422, "corrupt_data"),
            (Paths.plain(origin.url("truncated.jpg")), 422, "truncated"),
            (Paths.plain(origin.url("huge.bin")), 413, "too_large"),
            (Paths.plain(origin.url("large.jpg")), 413, "pixel_limit_exceeded"),
            (Paths.plain(origin.url("slow.jpg")), 504, "timeout"),
            (Paths.plain(origin.url("photo.jpg"), spec: "resize:stretch:65536:65536:enlarge"), 413, "too_large"),
        ]
        for (path, status, code) in cases {
            let response = try await HTTP.get(proxy.url(path))
            #expect(response.status == status, "\(path): \(String(decoding: response.body.prefix(300), as: UTF8.self))")
            #expect(response.header("content-type") == "application/json", "\(path)")
            #expect(response.json["error"] == code, "\(path): \(response.json)")
            #expect(!(response.json["message"] ?? "").isEmpty)
        }
        #expect(try await HTTP.get(proxy.url("/health")).status == 200, "the service is still up")
        #expect(proxy.sanitizerReports.isEmpty, "\(proxy.sanitizerReports)")
    }

    @Test func aTricklingOriginIsCutAtTheSourceDeadline() async throws {
        // 50 bytes every 200 ms (27 s for the 6.7 KB file): never silent for the loader's 1 s, so only the whole load's
        // deadline (--source-timeout 1) can end it.
        let origin = try HTTPTestServer()
        origin.addFile("photo.jpg", data: try Origin.example("photo.jpg"))
        let proxy = try ProxyProcess(["--allow-origin", origin.baseURL.absoluteString + "/", "--source-timeout", "1"])
        let started = ContinuousClock.now
        let slow = try await HTTP.get(proxy.url(Paths.plain(origin.url("/files/photo.jpg?chunk=50&pace=200"), spec: "resize:fit:10:10")))
        let elapsed = ContinuousClock.now - started
        #expect(slow.status == 504)
        #expect(slow.json["error"] == "timeout")
        #expect((slow.json["message"] ?? "").contains("took longer than"), "\(slow.json)")
        #expect(elapsed < .seconds(10), "cut near its 1 s deadline, not when the body ends (27 s on): \(elapsed)")
        #expect(try await HTTP.get(proxy.url(Paths.plain(origin.url("/files/photo.jpg"), spec: "resize:fit:10:10"))).status == 200)
    }

    @Test func aFullRenderQueueAnswers503AndEverythingElseSucceeds() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix, "--max-concurrent-transforms", "1", "--max-queued-transforms", "0"])
        // Eight different heavy renders of one source: their shared download ends at one instant,
        // so they reach the render gate together; one runs, none may wait.
        let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for sigma in 1...8 {
                let path = Paths.plain(origin.url("large.jpg"), spec: "blur:\(10 + sigma)")
                group.addTask {
                    let response = try await HTTP.get(proxy.url(path))
                    return (response.status, response.header("retry-after"))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0.0 == 200 || $0.0 == 503 }, "\(statuses)")
        #expect(statuses.contains { $0.0 == 200 })
        #expect(statuses.contains { $0.0 == 503 }, "\(statuses)")
        #expect(statuses.filter { $0.0 == 503 }.allSatisfy { $0.1 == "1" }, "503 says when to retry")
        #expect(proxy.sanitizerReports.isEmpty, "\(proxy.sanitizerReports)")
    }
}

/// The width and height in a JPEG's SOF marker.
func JPEGSize(_ data: Data) throws -> (Int, Int) {
    let bytes = [UInt8](data)
    var i = 2
    while i + 9 < bytes.count {
        guard bytes[i] == 0xFF else { throw TestFailure("not a JPEG marker at \(i)") }
        let marker = bytes[i + 1]
        let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
        if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
            return (Int(bytes[i + 7]) << 8 | Int(bytes[i + 8]), Int(bytes[i + 5]) << 8 | Int(bytes[i + 6]))
        }
        i += 2 + length
    }
    throw TestFailure("no SOF marker")
}
