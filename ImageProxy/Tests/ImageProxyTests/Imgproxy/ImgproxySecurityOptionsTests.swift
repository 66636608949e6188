import CoderGIF
import CoderJPEG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// imgproxy's security options in a URL (`max_src_resolution`/`msr`, `max_src_file_size`/`msfs`,
/// `max_animation_frames`/`maf`, `max_animation_frame_resolution`/`mafr`) through the running
/// service in `--compat imgproxy`: refused without `--allow-security-options`; with it, each
/// replaces the service's limit for that URL, looser or stricter, and is part of the result key.
@Suite("imgproxy compat: security options per URL", .serialized)
struct ImgproxySecurityOptionsTests {
    static let large = "exif-orientation/recurser/Landscape_0.jpg"  // 1800x1200: 2.16 megapixels
    static let chi = "gif/pillow/chi.gif"  // 320x240, 31 frames

    static func origin() throws -> NginxServer {
        try NginxServer(tls: false, files: ["large.jpg": try TestData.data(large), "chi.gif": try TestData.data(chi)])
    }

    @Test("without --allow-security-options each is refused with imgproxy's 403")
    func refusedUnlessAllowed() async throws {
        let origin = try Self.origin()
        let proxy = try ProxyProcess(["--compat", "imgproxy", "--allow-origin", origin.prefix])
        let source = origin.url("large.jpg").absoluteString
        for option in ["msr:10", "max_src_file_size:1000000", "maf:2", "mafr:1"] {
            let served = try await HTTP.get(proxy.url("/unsafe/rs:fit:300:300/\(option)/plain/\(source)@jpg"))
            #expect(served.status == 403, "\(option): \(served.status)")
        }
    }

    @Test("msr and msfs replace the service's limits for the URL: looser passes, stricter answers 422 Invalid source image")
    func sourceResolutionAndSize() async throws {
        let origin = try Self.origin()
        let proxy = try ProxyProcess([
            "--compat", "imgproxy", "--allow-origin", origin.prefix, "--allow-security-options", "--max-source-megapixels", "1",
        ])
        let source = origin.url("large.jpg").absoluteString
        let bytes = try TestData.data(Self.large).count
        let cases: [(String, Int)] = [
            ("", 422),  // the service's 1 megapixel
            ("/msr:2.5", 200),  // looser than the service's
            ("/max_src_resolution:2.1", 422),  // 2.16 megapixels is over 2.1
            ("/msr:2.5/msfs:\(bytes)", 200),  // exactly the source's size
            ("/msr:2.5/max_src_file_size:\(bytes - 1)", 422),
            ("/msr:2.5/msfs:0", 200),  // 0: no limit of the URL's own
            ("/msr:abc", 404),
            ("/msr:0", 404),
        ]
        for (options, status) in cases {
            let served = try await HTTP.get(proxy.url("/unsafe/rs:fit:300:300\(options)/plain/\(source)@jpg"))
            #expect(served.status == status, "\(options): \(served.status) \(String(decoding: served.body.prefix(200), as: UTF8.self))")
            if status == 422 { #expect(String(decoding: served.body, as: UTF8.self) == "Invalid source image", "\(options)") }
            if status == 200 { #expect(try JPEGCoder().decode(served.body, options: DecodeOptions()).width == 300, "\(options)") }
        }
        // The limits are part of the result key: the stricter URL is refused after the looser
        // one's result was cached, and the other way round.
        let looser = try await HTTP.get(proxy.url("/unsafe/rs:fit:200:200/msr:3/plain/\(source)@jpg"))
        let stricter = try await HTTP.get(proxy.url("/unsafe/rs:fit:200:200/msr:2/plain/\(source)@jpg"))
        #expect(looser.status == 200 && stricter.status == 422)
    }

    @Test("maf keeps the first frames animated (1: a still); over mafr, or msr for the frames kept, 422 Invalid source image")
    func animationLimits() async throws {
        let origin = try Self.origin()
        // 256 frames as the operator's IMGPROXY_MAX_ANIMATION_FRAMES (imgproxy's own tests set 100).
        let proxy = try ProxyProcess(["--compat", "imgproxy", "--allow-origin", origin.prefix, "--allow-security-options", "--max-animation-frames", "256"])
        let source = origin.url("chi.gif").absoluteString
        let durations = try GIFCoder().decode(try TestData.data(Self.chi), options: DecodeOptions()).allFrames.map(\.duration)
        // (options, frames answered, or 0 for imgproxy's 422) — 320x240 is 0.0768 megapixels a frame.
        let cases: [(String, Int)] = [
            ("", 31),
            ("/maf:31", 31),
            ("/max_animation_frames:30", 30),  // the first 30 of 31
            ("/maf:5", 5),
            ("/maf:1", 1),  // a still
            ("/mafr:0.0768", 31),
            ("/max_animation_frame_resolution:0.07", 0),  // each frame is over it
            ("/mafr:0.07/maf:1", 1),  // a still is checked against msr only
            ("/mafr:0.0768/msr:0.01", 31),  // with mafr, msr is not checked for an animation
            ("/mafr:0/msr:2.4", 31),  // all frames together: 31 x 0.0768 = 2.38 megapixels
            ("/mafr:0/msr:2.3", 0),
            ("/msr:2.3/maf:29", 29),  // the frames kept: 29 x 0.0768 = 2.23 megapixels
            ("/msr:0.3/maf:4", 0),  // 4 x 0.0768 = 0.307
            ("/msr:0.31/maf:4", 4),
        ]
        for (options, frames) in cases {
            let served = try await HTTP.get(proxy.url("/unsafe/rs:fill:100:80\(options)/plain/\(source)@gif"))
            let body = String(decoding: served.body.prefix(200), as: UTF8.self)
            guard frames > 0 else {
                #expect(served.status == 422 && body == "Invalid source image", "\(options): \(served.status) \(body)")
                continue
            }
            #expect(served.status == 200, "\(options): \(served.status) \(body)")
            guard served.status == 200 else { continue }
            let image = try GIFCoder().decode(served.body, options: DecodeOptions())
            #expect(image.frameCount == frames && image.width == 100 && image.height == 80, "\(options): \(image.frameCount) frames")
            if frames > 1 { #expect(zip(image.allFrames, durations).allSatisfy { abs($0.duration - $1) < 0.011 }, "\(options): the first frames' durations") }
        }
    }

    @Test("imgproxy's default IMGPROXY_MAX_ANIMATION_FRAMES is 1: a still unless the URL's maf or the operator says more")
    func oneFrameByDefault() async throws {
        let origin = try Self.origin()
        let source = origin.url("chi.gif").absoluteString
        let proxy = try ProxyProcess(["--compat", "imgproxy", "--allow-origin", origin.prefix, "--allow-security-options"])
        for (options, frames) in [("", 1), ("/maf:5", 5)] {
            let served = try await HTTP.get(proxy.url("/unsafe/rs:fill:100:80\(options)/plain/\(source)@gif"))
            #expect(served.status == 200)
            guard served.status == 200 else { continue }
            #expect(try GIFCoder().decode(served.body, options: DecodeOptions()).frameCount == frames, "\(options)")
        }
        let native = try ProxyProcess(["--allow-origin", origin.prefix])
        let animated = try await HTTP.get(native.url("/unsafe/resize:fill:100:80/plain/\(source)@gif"))
        #expect(try GIFCoder().decode(animated.body, options: DecodeOptions()).frameCount == 31, "the native grammar keeps 256 by default")
    }

    @Test("a GIF cut after the frames maf keeps answers them animated; one whose kept frames are cut answers a still of the first")
    func brokenLaterFrame() async throws {
        let whole = try TestData.data(Self.chi)
        let origin = try NginxServer(tls: false, files: ["cut.gif": whole.prefix(whole.count * 6 / 10)])  // cut inside frame 21
        let proxy = try ProxyProcess(["--compat", "imgproxy", "--allow-origin", origin.prefix, "--allow-security-options", "--max-animation-frames", "256"])
        let source = origin.url("cut.gif").absoluteString
        for (options, frames) in [("/maf:5", 5), ("/maf:21", 21), ("", 1)] {
            let served = try await HTTP.get(proxy.url("/unsafe/rs:fill:100:80\(options)/plain/\(source)@gif"))
            #expect(served.status == 200, "\(options): \(served.status)")
            guard served.status == 200 else { continue }
            #expect(try GIFCoder().decode(served.body, options: DecodeOptions()).frameCount == frames, "\(options)")
        }
    }
}

/// imgproxy's `enforce_thumbnail` through the running service: a HEIF source's stored thumbnail
/// instead of its image, per URL or by `--enforce-thumbnail` (`IMGPROXY_ENFORCE_THUMBNAIL`), the
/// URL winning.
@Suite("imgproxy compat: enforce_thumbnail", .serialized)
struct ImgproxyEnforceThumbnailTests {
    @Test("eth decodes the HEIF source's 320x212 thumbnail: the result's size says which image was used")
    func enforceThumbnail() async throws {
        // example.heic is 1280x854 with a 320x212 thumbnail; without enlarge a fit into 1000x1000
        // keeps whichever was decoded at its own size.
        let origin = try NginxServer(tls: false, files: ["example.heic": try TestData.data("heif/libheif/example.heic")])
        let source = origin.url("example.heic").absoluteString
        let cases: [([String], String, Int)] = [
            ([], "", 1000),
            ([], "/eth:1", 320),
            ([], "/enforce_thumbnail:true", 320),
            (["--enforce-thumbnail"], "", 320),
            (["--enforce-thumbnail"], "/eth:0", 1000),
        ]
        for (flags, option, width) in cases {
            let proxy = try ProxyProcess(["--compat", "imgproxy", "--allow-origin", origin.prefix] + flags)
            let served = try await HTTP.get(proxy.url("/unsafe/rs:fit:1000:1000\(option)/plain/\(source)@jpg"))
            #expect(served.status == 200, "\(flags) \(option)")
            guard served.status == 200 else { continue }
            let image = try JPEGCoder().decode(served.body, options: DecodeOptions())
            #expect(image.width == width, "\(flags) \(option): \(image.width)x\(image.height)")
        }
    }
}
