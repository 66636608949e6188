import CoderGIF
import CoderJPEG
import CoderPNG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing
import Transformers

/// The transform steps imgproxy's users rely on (smart crop, focus points, pad, extend,
/// background, trim, dpr, watermark) through the running service and a real origin: each result
/// is the pixels the spec gives locally on the same decode.
@Suite("image-proxy new transform steps", .serialized)
struct ProxyStepsTests {
    /// What the proxy's RGB path does with an untagged JPEG: decode (shrunk on load as the spec
    /// allows), orient, the spec.
    static func localRender(_ source: Data, spec text: String, watermark: Image? = nil) throws -> Image {
        let spec = try TransformSpec(parsing: text, watermark: watermark)
        let decoded = try JPEGCoder().decode(source, options: DecodeOptions(shrinkOnLoad: spec.shrinkOnLoad))
        return try spec.transform(try OrientTransformer().transform(decoded))
    }

    @Test(arguments: [
        "resize:fill:120:80:smart", "crop:300:300:smart", "resize:fill:120:80:fp:0.2:0.8", "crop:200:100:fp:0.9:0.1",
        "resize:fit:100:100/pad:5:10:15:20:ff000080", "resize:fit:120:60/extend:120:120", "resize:fit:120:60/extend:130:130:soea:00ff00ff",
        "trim/resize:fit:100:100", "dpr:2/resize:fit:60:60", "dpr:3/crop:50:40", "resize:fit:100:100/background:00ff00",
    ])
    func eachStepRendersThroughTheServiceAsLocally(spec: String) async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let response = try await HTTP.get(proxy.url(Paths.plain(origin.url("large.jpg"), spec: spec, format: "png")))
        #expect(response.status == 200, "\(spec): \(String(decoding: response.body.prefix(300), as: UTF8.self))")
        let served = try PNGCoder().decode(response.body, options: DecodeOptions())
        let local = try Self.localRender(try TestData.data("exif-orientation/recurser/Landscape_0.jpg"), spec: spec)
        #expect(served.width == local.width && served.height == local.height, "\(spec): \(served.width)x\(served.height)")
        #expect(served.pixelFormat == local.pixelFormat, "\(spec)")
        #expect(served.pixels == local.pixels, "\(spec)")
    }

    @Test func smartCropAndDPRChangeTheResultAndDPRNeverEnlargesUnlessAsked() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        func png(_ spec: String) async throws -> Image {
            let response = try await HTTP.get(proxy.url(Paths.plain(origin.url("large.jpg"), spec: spec, format: "png")))
            #expect(response.status == 200, "\(spec)")
            return try PNGCoder().decode(response.body, options: DecodeOptions())
        }
        // A portrait window of a landscape source: the placement moves it along the width.
        let centre = try await png("resize:fill:80:120"), focus = try await png("resize:fill:80:120:fp:0.05:0.5")
        let smart = try await png("resize:fill:80:120:smart")
        #expect(centre.pixels != focus.pixels, "a focus point at the left edge moves the window")
        #expect(smart.width == 80 && smart.height == 120)
        let twice = try await png("dpr:2/resize:fit:60:60")
        #expect(max(twice.width, twice.height) == 120)
        // 1800x1200 source: dpr 8 of a 400 fit would be 3200, past the source: it stays at 1800.
        let capped = try await png("dpr:8/resize:fit:400:400")
        #expect(capped.width == 1800 && capped.height == 1200, "\(capped.width)x\(capped.height)")
        let enlarged = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg"), spec: "dpr:2/resize:fit:500:500:enlarge", format: "png")))
        #expect(enlarged.status == 200)
        #expect(try PNGCoder().decode(enlarged.body, options: DecodeOptions()).width == 1000, "160x120 enlarged to fit 1000x1000")
    }

    @Test func backgroundFlattensAlphaForJPEG() async throws {
        let origin = try Origin.start()
        // 40x40: the left half transparent, the right half opaque green.
        var pixels = [UInt8](repeating: 0, count: 40 * 40 * 4)
        for y in 0..<40 {
            for x in 20..<40 { pixels.replaceSubrange(((y * 40 + x) * 4)..<((y * 40 + x) * 4 + 4), with: [0, 200, 0, 255]) }
        }
        let half = try Image(width: 40, height: 40, pixelFormat: .rgba8, pixels: pixels)
        try PNGCoder().encode(half, as: .png, options: EncodeOptions()).write(to: origin.directory.appendingPathComponent("www/half.png"))
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        // An opaque background composites and flattens; a translucent one composites, and the
        // JPEG encoder flattens what is left over the same colour, not over white.
        for (spec, expected) in [("background:ff0000", (255, 0, 0)), ("background:0000ff80", (0, 0, 255)), ("orient", (255, 255, 255))] {
            let response = try await HTTP.get(proxy.url(Paths.plain(origin.url("half.png"), spec: spec, format: "jpg")))
            #expect(response.status == 200, "\(spec)")
            let jpeg = try JPEGCoder().decode(response.body, options: DecodeOptions())
            #expect(jpeg.pixelFormat == .rgb8 && jpeg.width == 40)
            for (x, want) in [(5, expected), (35, (0, 200, 0))] {
                let i = (20 * 40 + x) * 3
                let pixel = (Int(jpeg.pixels[i]), Int(jpeg.pixels[i + 1]), Int(jpeg.pixels[i + 2]))
                #expect(abs(pixel.0 - want.0) < 12 && abs(pixel.1 - want.1) < 12 && abs(pixel.2 - want.2) < 12, "\(spec) at x \(x): \(pixel)")
            }
        }
    }

    @Test func trimCutsABorderOfOneColour() async throws {
        let origin = try Origin.start()
        // A 60x40 photo inside a 20 px white border, served by the origin.
        let photo = try ResizeTransformer(.stretch, width: 60, height: 40, allowsEnlarging: true)
            .transform(try JPEGCoder().decode(try Origin.example("photo.jpg"), options: DecodeOptions()))
        var framed = try Image(width: 100, height: 80, pixelFormat: .rgb8, pixels: [UInt8](repeating: 255, count: 100 * 80 * 3))
        for y in 0..<40 {
            for x in 0..<60 {
                for c in 0..<3 { framed.pixels[((y + 20) * 100 + x + 20) * 3 + c] = photo.pixels[(y * 60 + x) * 3 + c] }
            }
        }
        try PNGCoder().encode(framed, as: .png, options: EncodeOptions()).write(to: origin.directory.appendingPathComponent("www/framed.png"))
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let trimmed = try await HTTP.get(proxy.url(Paths.plain(origin.url("framed.png"), spec: "trim", format: "png")))
        #expect(trimmed.status == 200)
        let image = try PNGCoder().decode(trimmed.body, options: DecodeOptions())
        // The border goes (and at most a near-white edge of the photo with it).
        #expect(image.width <= 60 && image.height <= 40 && image.width >= 50 && image.height >= 30, "\(image.width)x\(image.height)")
        // trim runs first wherever it is written.
        let late = try await HTTP.get(proxy.url(Paths.plain(origin.url("framed.png"), spec: "resize:fit:50:50/trim", format: "png")))
        #expect(try PNGCoder().decode(late.body, options: DecodeOptions()).width == 50)
    }

    @Test func trimCutsEveryFrameOfAnAnimationByOneRectangle() async throws {
        let origin = try Origin.start()
        // Three 40x40 white frames, a 10x10 red square in a different place on each: one
        // rectangle holds them all, from (5, 5) to (30, 30).
        let frames = try [(5, 5), (20, 20), (12, 8)].map { (left: Int, top: Int) -> ImageFrame in
            var pixels = [UInt8](repeating: 255, count: 40 * 40 * 3)
            for y in top..<(top + 10) {
                for x in left..<(left + 10) { pixels.replaceSubrange(((y * 40 + x) * 3)..<((y * 40 + x) * 3 + 3), with: [220, 0, 0]) }
            }
            return ImageFrame(image: try Image(width: 40, height: 40, pixelFormat: .rgb8, pixels: pixels), duration: 0.1)
        }
        let animation = try Image(animating: frames, loopCount: 0)
        try GIFCoder().encode(animation, as: .gif, options: EncodeOptions()).write(to: origin.directory.appendingPathComponent("www/moving.gif"))
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let response = try await HTTP.get(proxy.url(Paths.plain(origin.url("moving.gif"), spec: "trim", format: "gif")))
        #expect(response.status == 200, "\(String(decoding: response.body.prefix(300), as: UTF8.self))")
        var options = DecodeOptions()
        options.firstFrameOnly = false
        let served = try GIFCoder().decode(response.body, options: options)
        #expect(served.frameCount == 3)
        #expect(served.allFrames.allSatisfy { $0.image.width == 25 && $0.image.height == 25 },
                "\(served.allFrames.map { "\($0.image.width)x\($0.image.height)" })")
    }

    @Test func theWatermarkIsLoadedOnceFromAFileOrAnAllowedURL() async throws {
        let origin = try Origin.start()
        let file = Origin.examples.appendingPathComponent("gradient-alpha.png")
        let mark = try OrientTransformer().transform(try PNGCoder().decode(try Data(contentsOf: file), options: DecodeOptions()))
        let spec = "resize:fill:200:150/watermark:0.8:soea:0.5"

        let none = try ProxyProcess(["--allow-origin", origin.prefix])
        let refused = try await HTTP.get(none.url(Paths.plain(origin.url("large.jpg"), spec: spec)))
        #expect(refused.status == 400 && refused.json["error"] == "invalid_spec", "\(refused.json)")
        #expect((refused.json["message"] ?? "").contains("watermark"), "\(refused.json)")

        let fromFile = try ProxyProcess(["--allow-origin", origin.prefix, "--watermark", file.path])
        let response = try await HTTP.get(fromFile.url(Paths.plain(origin.url("large.jpg"), spec: spec, format: "png")))
        #expect(response.status == 200)
        let served = try PNGCoder().decode(response.body, options: DecodeOptions())
        let local = try Self.localRender(try TestData.data("exif-orientation/recurser/Landscape_0.jpg"), spec: spec, watermark: mark)
        #expect(served.pixels == local.pixels, "the watermark composited as the transformer does it")
        let plain = try await HTTP.get(fromFile.url(Paths.plain(origin.url("large.jpg"), spec: "resize:fill:200:150", format: "png")))
        #expect(plain.body != response.body)
        for tiled in ["watermark:0.5:re", "watermark:1", "wm:0.3:nowe:0.25"] {
            #expect(try await HTTP.get(fromFile.url(Paths.plain(origin.url("photo.jpg"), spec: tiled))).status == 200, "\(tiled)")
        }

        // From an allowed URL, through the service's own loader: the same result.
        let watermarkURL = origin.url(Origin.galleryName(1, "examples/gradient-alpha.png"))
        let fromURL = try ProxyProcess(["--allow-origin", origin.prefix, "--watermark", watermarkURL.absoluteString])
        let again = try await HTTP.get(fromURL.url(Paths.plain(origin.url("large.jpg"), spec: spec, format: "png")))
        #expect(again.body == response.body)
        #expect(Origin.requests(origin, path: "/" + Origin.galleryName(1, "examples/gradient-alpha.png")) == 1, "loaded once, at start")
        _ = try await HTTP.get(fromURL.url(Paths.plain(origin.url("photo.jpg"), spec: "watermark:0.5")))
        #expect(Origin.requests(origin, path: "/" + Origin.galleryName(1, "examples/gradient-alpha.png")) == 1, "and kept")
        // A watermark outside the allowed origins, or one that is no image, stops the start.
        #expect(throws: TestFailure.self) {
            try ProxyProcess(["--allow-origin", origin.prefix, "--watermark", origin.url("photo.jpg", address: "127.0.0.2").absoluteString])
        }
        #expect(throws: TestFailure.self) { try ProxyProcess(["--allow-origin", origin.prefix, "--watermark", origin.url("notes.txt").absoluteString]) }
        #expect(throws: TestFailure.self) { try ProxyProcess(["--allow-origin", origin.prefix, "--watermark", "/nonexistent/mark.png"]) }
    }

    @Test func presetsOnlyServesTheNewStepsThroughPresetsAlone() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess([
            "--allow-origin", origin.prefix, "--only-presets", "--preset", "hero=resize:fill:200:100:smart/pad:4:4:4:4:000000ff/dpr:2",
        ])
        let hero = try await HTTP.get(proxy.url(Paths.plain(origin.url("large.jpg"), spec: "preset:hero", format: "png")))
        #expect(hero.status == 200)
        let image = try PNGCoder().decode(hero.body, options: DecodeOptions())
        // dpr 2 doubles the fill and the padding alike: 400x200 inside 8 px.
        #expect(image.width == 416 && image.height == 216, "\(image.width)x\(image.height)")
        for spec in ["resize:fill:200:100:smart", "trim", "dpr:2", "preset:hero/dpr:3", "pad:1:1:1:1", "background:ff0000", "extend"] {
            let refused = try await HTTP.get(proxy.url(Paths.plain(origin.url("large.jpg"), spec: spec)))
            #expect(refused.status == 403 && refused.json["error"] == "presets_only", "\(spec)")
        }
    }
}
