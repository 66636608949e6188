import CoderHEIF
import CoderJPEG
import CoderPNG
import CoderWebP
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// Output options through the running service: presets, progressive JPEG and interlaced PNG,
/// per-format default quality, `max_bytes` and `Content-Disposition`.
@Suite("image-proxy presets and output options", .serialized)
struct ProxyOutputTests {
    @Test func presetsFromOptionsAndAFileRenderAsTheirSpecs() async throws {
        let origin = try Origin.start()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("presets-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("# shop sizes\ncard=preset:thumb/round:8\n".utf8).write(to: file)
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix, "--preset", "thumb=resize:fill:100:100/q:70", "--presets-file", file.path])
        let preset = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg"), spec: "preset:card", format: "png")))
        let explicit = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg"), spec: "resize:fill:100:100/q:70/round:8", format: "png")))
        #expect(preset.status == 200 && explicit.status == 200)
        #expect(preset.body == explicit.body)
        #expect(preset.header("etag") == explicit.header("etag"), "the same result, one cache entry")
        let unknown = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg"), spec: "preset:nope")))
        #expect(unknown.status == 400 && unknown.json["error"] == "unknown_preset")

        let only = try ProxyProcess(["--allow-origin", origin.prefix, "--presets-file", file.path, "--preset", "thumb=resize:fill:100:100", "--only-presets"])
        #expect(try await HTTP.get(only.url(Paths.plain(origin.url("photo.jpg"), spec: "preset:thumb"))).status == 200)
        for spec in ["resize:fill:100:100", "preset:thumb/blur:20", "", "q:5"] {
            let refused = try await HTTP.get(only.url(Paths.plain(origin.url("photo.jpg"), spec: spec)))
            #expect(refused.status == 403 && refused.json["error"] == "presets_only", "\(spec): \(refused.json)")
        }
        #expect(Origin.requests(origin, path: "/photo.jpg") == 2, "refused specs never reach the origin")
    }

    @Test func aPresetCycleOrABadPresetStopsTheStart() throws {
        let origin = try Origin.start()
        #expect(throws: TestFailure.self) { try ProxyProcess(["--allow-origin", origin.prefix, "--preset", "a=preset:b", "--preset", "b=preset:a"]) }
        #expect(throws: TestFailure.self) { try ProxyProcess(["--allow-origin", origin.prefix, "--preset", "a=warp:9"]) }
        #expect(throws: TestFailure.self) { try ProxyProcess(["--allow-origin", origin.prefix, "--quality", "tga=50"]) }
    }

    @Test func progressiveJPEGAndInterlacedPNGByFlagAndByRequest() async throws {
        let origin = try Origin.start()
        let plain = try ProxyProcess(["--allow-origin", origin.prefix])
        let flagged = try ProxyProcess(["--allow-origin", origin.prefix, "--jpeg-progressive", "--png-interlaced"])
        // The planar JPEG path (a resize of a JPEG) and the RGB path (another step) both honour it.
        for spec in ["resize:fill:300:200", "resize:fill:300:200/gray"] {
            let baseline = try await HTTP.get(plain.url(Paths.plain(origin.url("large.jpg"), spec: spec)))
            let asked = try await HTTP.get(plain.url(Paths.plain(origin.url("large.jpg"), spec: spec + "/progressive")))
            let byFlag = try await HTTP.get(flagged.url(Paths.plain(origin.url("large.jpg"), spec: spec)))
            let optedOut = try await HTTP.get(flagged.url(Paths.plain(origin.url("large.jpg"), spec: spec + "/progressive:0")))
            #expect(try JPEGStartOfFrame(baseline.body) == 0xC0, "\(spec)")
            #expect(try JPEGStartOfFrame(asked.body) == 0xC2, "\(spec)")
            #expect(try JPEGStartOfFrame(byFlag.body) == 0xC2, "\(spec)")
            #expect(try JPEGStartOfFrame(optedOut.body) == 0xC0, "\(spec)")
            #expect(asked.body == byFlag.body)
            let decoded = try JPEGCoder().decode(asked.body, options: DecodeOptions())
            #expect(decoded.width == 300 && decoded.height == 200)
        }
        let png = try await HTTP.get(plain.url(Paths.plain(origin.url("alpha.png"), spec: "resize:fit:64:64", format: "png")))
        let interlaced = try await HTTP.get(plain.url(Paths.plain(origin.url("alpha.png"), spec: "resize:fit:64:64/progressive", format: "png")))
        let byFlag = try await HTTP.get(flagged.url(Paths.plain(origin.url("alpha.png"), spec: "resize:fit:64:64", format: "png")))
        #expect(png.body[png.body.startIndex + 28] == 0, "IHDR interlace method: none")
        #expect(interlaced.body[interlaced.body.startIndex + 28] == 1, "IHDR interlace method: Adam7")
        #expect(byFlag.body[byFlag.body.startIndex + 28] == 1)
        let a = try PNGCoder().decode(png.body, options: DecodeOptions()), b = try PNGCoder().decode(interlaced.body, options: DecodeOptions())
        #expect(a.pixels == b.pixels, "the same pixels, interlaced")
    }

    @Test func eachFormatHasItsDefaultQualityAndItIsConfigurable() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        func body(_ proxy: ProxyProcess, _ spec: String, _ format: String) async throws -> Data {
            let response = try await HTTP.get(proxy.url(Paths.plain(origin.url("large.jpg"), spec: spec, format: format)))
            #expect(response.status == 200, "\(spec) \(format)")
            return response.body
        }
        // imgproxy's defaults: JPEG 80, WebP 79, AVIF 63.
        #expect(try await body(proxy, "resize:fit:200:200", "webp") == (try await body(proxy, "resize:fit:200:200/q:79", "webp")))
        #expect(try await body(proxy, "resize:fit:200:200", "webp") != (try await body(proxy, "resize:fit:200:200/q:80", "webp")))
        #expect(try await body(proxy, "resize:fit:200:200", "avif") == (try await body(proxy, "resize:fit:200:200/q:63", "avif")))
        #expect(try await body(proxy, "resize:fit:200:200", "jpg") == (try await body(proxy, "resize:fit:200:200/q:80", "jpg")))
        let tuned = try ProxyProcess(["--allow-origin", origin.prefix, "--quality", "webp=40", "--quality", "jpeg=55"])
        #expect(try await body(tuned, "resize:fit:200:200", "webp") == (try await body(proxy, "resize:fit:200:200/q:40", "webp")))
        #expect(try await body(tuned, "resize:fit:200:200", "jpg") == (try await body(proxy, "resize:fit:200:200/q:55", "jpg")))
        #expect(try await body(tuned, "resize:fit:200:200", "avif") == (try await body(proxy, "resize:fit:200:200/q:63", "avif")))
    }

    @Test func maxBytesLowersTheQualityUntilTheResultFits() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        for format in ["jpg", "webp", "avif"] {
            let full = try await HTTP.get(proxy.url(Paths.plain(origin.url("large.jpg"), spec: "resize:fit:400:400", format: format)))
            let budget = full.body.count * 6 / 10
            let fitted = try await HTTP.get(proxy.url(Paths.plain(origin.url("large.jpg"), spec: "resize:fit:400:400/max_bytes:\(budget)", format: format)))
            #expect(fitted.status == 200)
            #expect(fitted.body.count <= budget, "\(format): \(fitted.body.count) bytes for a budget of \(budget) (\(full.body.count) at the default)")
            #expect(fitted.body.count > budget / 2, "\(format): the highest quality that fits, not the lowest: \(fitted.body.count) of \(budget)")
            let image = try CoderRegistry([JPEGCoder(), WebPCoder(), HEIFCoder()]).decode(fitted.body, options: DecodeOptions())
            #expect(max(image.width, image.height) == 400, "\(format)")
            // A budget nothing fits: the smallest result tried, still an answer.
            let tiny = try await HTTP.get(proxy.url(Paths.plain(origin.url("large.jpg"), spec: "resize:fit:400:400/mb:100", format: format)))
            #expect(tiny.status == 200 && tiny.body.count < fitted.body.count, "\(format)")
        }
        // PNG has no quality to lower: the budget does not apply.
        let png = try await HTTP.get(proxy.url(Paths.plain(origin.url("alpha.png"), spec: "resize:fit:64:64", format: "png")))
        let budgeted = try await HTTP.get(proxy.url(Paths.plain(origin.url("alpha.png"), spec: "resize:fit:64:64/max_bytes:100", format: "png")))
        #expect(budgeted.body == png.body)
    }

    @Test func contentDispositionNamesTheFileSafely() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let cases: [(String, String?, String?)] = [
            ("resize:fit:50:50", nil, nil),
            ("resize:fit:50:50/attachment", nil, #"attachment; filename="photo.jpg""#),
            ("resize:fit:50:50/filename:menu", nil, #"inline; filename="menu.jpg""#),
            ("resize:fit:50:50/filename:menu.jpg", nil, #"inline; filename="menu.jpg""#),
            ("resize:fit:50:50/fn:caf%C3%A9%20%22menu%22/att", nil, #"attachment; filename="caf_ _menu_.jpg"; filename*=UTF-8''caf%C3%A9%20%22menu%22.jpg"#),
            ("resize:fit:50:50/fn:..%2F..%2Fetc%2Fpasswd", nil, #"inline; filename="passwd.jpg""#),
            ("resize:fit:50:50/fn:.hidden", "webp", #"inline; filename="_hidden.webp"; filename*=UTF-8''.hidden.webp"#),
        ]
        for (spec, format, expected) in cases {
            let path = Paths.plain(origin.url("photo.jpg"), spec: spec, format: format)
            for round in 0..<2 {  // the second from the memory cache's hot path
                let response = try await HTTP.get(proxy.url(path))
                #expect(response.status == 200)
                #expect(response.header("content-disposition") == expected, "\(spec) round \(round)")
            }
        }
    }
}

/// The start-of-frame marker of a JPEG: 0xC0 baseline, 0xC2 progressive.
func JPEGStartOfFrame(_ data: Data) throws -> UInt8 {
    let bytes = [UInt8](data)
    var i = 2
    while i + 3 < bytes.count {
        guard bytes[i] == 0xFF else { throw TestFailure("not a JPEG marker at \(i)") }
        let marker = bytes[i + 1]
        if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) { return marker }
        i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
    }
    throw TestFailure("no SOF marker")
}
