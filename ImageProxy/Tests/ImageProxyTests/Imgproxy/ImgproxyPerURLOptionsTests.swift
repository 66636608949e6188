import CoderJPEG
import CoderPNG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// imgproxy's per-URL output options through the running service in `--compat imgproxy`:
/// `strip_metadata`/`sm`, `keep_copyright`/`kcr` and `strip_color_profile`/`scp` over the
/// service's settings, `auto_rotate:0`, and `skip_processing`/`skp` and `raw`, which answer the source's own bytes.
@Suite("imgproxy compat: per-URL metadata, colour, skip_processing and raw", .serialized)
struct ImgproxyPerURLOptionsTests {
    static func compat(_ origin: NginxServer, _ extra: [String] = []) throws -> ProxyProcess {
        try ProxyProcess(["--compat", "imgproxy", "--allow-origin", origin.prefix] + extra)
    }

    @Test("sm and kcr in the URL choose the metadata over the service's setting, both ways")
    func metadataPerURL() async throws {
        let origin = try NginxServer(tls: false, files: ["upright.jpg": try ProxyMetadataTests.source(orientation: 1)])
        let source = origin.url("upright.jpg").absoluteString
        let cases: [([String], String, MetadataPolicy)] = [
            ([], "rs:fit:300:300", .none),
            ([], "rs:fit:300:300/sm:0", .all),
            ([], "rs:fit:300:300/kcr:1", .copyright),
            ([], "rs:fit:300:300/sm:false/kcr:1", .all),
            (["--no-strip-metadata"], "rs:fit:300:300", .all),
            (["--no-strip-metadata"], "rs:fit:300:300/strip_metadata:1", .none),
            (["--no-strip-metadata"], "rs:fit:300:300/sm:1/keep_copyright:t", .copyright),
            (["--keep-copyright"], "rs:fit:300:300/kcr:0", .none),
        ]
        for (flags, options, policy) in cases {
            let proxy = try Self.compat(origin, flags)
            let served = try await HTTP.get(proxy.url("/unsafe/\(options)/plain/\(source)@jpg"))
            #expect(served.status == 200, "\(flags) \(options)")
            guard served.status == 200 else { continue }
            let image = try JPEGCoder().decode(served.body, options: DecodeOptions())
            #expect(image.width == 300)
            let problems = MetadataFixture.problems(readBack: image.metadata, file: served.body, policy: policy, orientation: .up, kinds: .all)
            #expect(problems.isEmpty, "\(flags) \(options) → \(policy): \(problems)")
        }
    }

    @Test("auto_rotate:0 keeps the stored orientation (and drops the tag); the default turns the image upright")
    func autoRotateOff() async throws {
        let origin = try NginxServer(tls: false, files: ["rotated.jpg": try ProxyMetadataTests.source(orientation: 6)])
        let proxy = try Self.compat(origin)
        let source = origin.url("rotated.jpg").absoluteString
        for (options, width, height) in [("rs:fit:300:300", 200, 300), ("rs:fit:300:300/ar:0", 300, 200), ("rs:fit:300:300/auto_rotate:false", 300, 200)] {
            let served = try await HTTP.get(proxy.url("/unsafe/\(options)/plain/\(source)@jpg"))
            #expect(served.status == 200)
            guard served.status == 200 else { continue }
            let image = try JPEGCoder().decode(served.body, options: DecodeOptions())
            #expect(image.width == width && image.height == height && image.orientation == .up, "\(options): \(image.width)x\(image.height) \(image.orientation)")
        }
    }

    @Test("scp:0 keeps the source's profile unconverted, scp:1 converts to sRGB over --keep-color-profile")
    func colourProfilePerURL() async throws {
        let (tagged, _, profile) = try ProxyColorTests.sources(profile: "a98.icc")
        let origin = try NginxServer(tls: false, files: ["tagged.jpg": tagged])
        let source = origin.url("tagged.jpg").absoluteString
        for (flags, options, keeps) in [([String](), "rs:fill:300:200", false), ([], "rs:fill:300:200/scp:0", true),
                                        (["--keep-color-profile"], "rs:fill:300:200", true), (["--keep-color-profile"], "rs:fill:300:200/scp:1", false)] {
            let proxy = try Self.compat(origin, flags)
            let served = try await HTTP.get(proxy.url("/unsafe/\(options)/plain/\(source)@jpg"))
            #expect(served.status == 200)
            guard served.status == 200 else { continue }
            let image = try JPEGCoder().decode(served.body, options: DecodeOptions())
            #expect(image.width == 300 && image.height == 200)
            #expect((image.iccProfile == profile) == keeps, "\(flags) \(options): profile kept \(keeps)")
            if !keeps { #expect(image.iccProfile == nil, "\(flags) \(options): converted, untagged") }
        }
    }

    @Test("skip_processing answers a listed format's source bytes when the result's format is the source's; raw answers any source")
    func skipProcessingAndRaw() async throws {
        var pixels = [UInt8](repeating: 0, count: 120 * 80 * 3)
        for i in pixels.indices { pixels[i] = UInt8(truncatingIfNeeded: i &* 7) }
        let image = try Image(width: 120, height: 80, pixelFormat: .rgb8, pixels: pixels)
        let png = try PNGCoder().encode(image, as: .png, options: EncodeOptions())
        let jpeg = try JPEGCoder().encode(image, as: .jpeg, options: EncodeOptions())
        let text = Data("not an image\n".utf8)
        let origin = try NginxServer(tls: false, files: ["a.png": png, "a.jpg": jpeg, "notes.txt": text])
        let proxy = try Self.compat(origin)
        func get(_ options: String, _ file: String, _ ext: String = "") async throws -> HTTP.Response {
            try await HTTP.get(proxy.url("/unsafe/\(options)/plain/\(origin.url(file).absoluteString)\(ext)"))
        }
        let skipped = try await get("rs:fit:60:60/skp:png:gif", "a.png")
        #expect(skipped.status == 200 && skipped.body == png && skipped.header("Content-Type") == "image/png", "a listed format: the source's bytes")
        let sameFormat = try await get("rs:fit:60:60/skp:png", "a.png", "@png")
        #expect(sameFormat.status == 200 && sameFormat.body == png)
        let otherFormat = try await get("rs:fit:60:60/skp:png", "a.png", "@jpg")
        #expect(otherFormat.status == 200 && otherFormat.body != png, "another result format: rendered")
        #expect(try JPEGCoder().decode(otherFormat.body, options: DecodeOptions()).width == 60)
        let unlisted = try await get("rs:fit:60:60/skp:png", "a.jpg")
        #expect(unlisted.status == 200, "an unlisted format: rendered")
        #expect(try JPEGCoder().decode(unlisted.body, options: DecodeOptions()).width == 60)
        let raw = try await get("rs:fit:60:60/raw:1", "a.jpg", "@png")
        #expect(raw.status == 200 && raw.body == jpeg && raw.header("Content-Type") == "image/jpeg", "raw ignores the processing and the extension")
        let rawText = try await get("raw:1", "notes.txt")
        #expect(rawText.status == 200 && rawText.body == text && rawText.header("Content-Type") == "application/octet-stream",
                "raw answers unchecked bytes")
        let rendered = try await get("rs:fit:60:60", "notes.txt")
        #expect(rendered.status == 422 || rendered.status == 400 || rendered.status == 415, "without raw, bytes that are no image are refused: \(rendered.status)")
    }
}
