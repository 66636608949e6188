import CoderGIF
import CoderHEIF
import CoderJPEG
import CoderJXL
import CoderPNG
import CoderTIFF
import CoderWebP
import Foundation
import ImageKernel
import ImageKernelTestSupport
import ImageProxyCore
import Testing

/// imgproxy's `preserve_hdr` (`IMGPROXY_PRESERVE_HDR`, `--preserve-hdr`) through the running
/// service in compat mode, ported from imgproxy's `processing/colorspace_test.go` (TestColorspace,
/// TestDownscaleHDR, TestWatermarkColorspace, TestPreserveHDROptionOverride): each source, resized
/// with `resize:fill:100:100/enlarge:1/format:FORMAT`, must give imgproxy's interpretation of the
/// result, read from the answer's PNG IHDR (bit depth and colour type): sRGB (8-bit colour), RGB16,
/// B_W (8-bit gray) or grey16. Sources are the repository's corpora: PngSuite's 32x32 `basn*`
/// files and 16-bit TIFFs (RGB 128x128, gray 64x64) with their 8-bit counterparts.
@Suite("imgproxy compat: preserve_hdr", .serialized)
struct ImgproxyPreserveHDRTests {
    /// The fixtures on the origin, by the name the tests use.
    static let files: [String: String] = [
        "8.png": "pngsuite/basn2c08.png", "16.png": "pngsuite/basn2c16.png",
        "g8.png": "pngsuite/basn0g08.png", "g16.png": "pngsuite/basn0g16.png",
        "a16.png": "pngsuite/basn6a16.png", "ga16.png": "pngsuite/basn4a16.png",
        "8.tif": "tiff/derived/hopper_zip_pred2.tif", "16.tif": "tiff/derived/hopper_rgb16_be_zip.tif",
        "g8.tif": "tiff/pillow/8bit.s.tif", "g16.tif": "tiff/pillow/16bit.deflate.tif",
        "a16.tif": "tiff/derived/hopper_rgba16_unassoc_zip.tif",
        "10.avif": "heif/av1-avif-Link-U/fox.profile0.10bpc.yuv420.avif",
    ]

    static func origin() throws -> NginxServer {
        try NginxServer(tls: false, files: try files.mapValues { try TestData.data($0) })
    }

    static func start(_ origin: NginxServer, _ flags: [String] = [], environment: [String: String] = [:]) throws -> ProxyProcess {
        try ProxyProcess(["--compat", "imgproxy", "--allow-origin", origin.prefix] + flags, environment: environment)
    }

    /// imgproxy's result for `file` through `options` (after `resize:fill:100:100/enlarge:1`).
    static func fetch(_ proxy: ProxyProcess, _ origin: NginxServer, _ file: String, _ options: String) async throws -> Data {
        let path = "/unsafe/resize:fill:100:100/enlarge:1/\(options)/plain/\(origin.url(file).absoluteString)"
        let served = try await HTTP.get(proxy.url(path))
        guard served.status == 200 else { throw TestFailure("\(path): \(served.status) \(String(decoding: served.body, as: UTF8.self))") }
        return served.body
    }

    /// The answer's interpretation in libvips' terms, with its size: from the IHDR of a PNG,
    /// else from the pixels the format's decoder gives with 16 bits kept.
    static func interpretation(_ body: Data) throws -> String {
        let bytes = [UInt8](body)
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), bytes.count > 26, bytes[12..<16].elementsEqual("IHDR".utf8) {
            let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
            let depth = bytes[24], colorType = bytes[25]
            let gray = colorType == 0 || colorType == 4
            let name = switch (depth, gray) {
            case (8, false): "sRGB"
            case (16, false): "RGB16"
            case (8, true): "B_W"
            case (16, true): "grey16"
            default: "depth \(depth) type \(colorType)"
            }
            return "\(name) \(width)x\(height)\(colorType == 4 || colorType == 6 ? " alpha" : "")"
        }
        let image = try CoderRegistry([JPEGCoder(), TIFFCoder(), JXLCoder(), HEIFCoder()]).decode(body, options: DecodeOptions(preserve16Bit: true))
        let gray = image.pixelFormat.layout == .gray || image.pixelFormat.layout == .grayAlpha
        let name = switch (image.pixelFormat.bitsPerComponent, gray) {
        case (8, false): "sRGB"
        case (16, false): "RGB16"
        case (8, true): "B_W"
        default: "grey16"
        }
        return "\(name) \(image.width)x\(image.height)\(image.pixelFormat.hasAlpha ? " alpha" : "")"
    }

    @Test("TestColorspace: with preserve_hdr a 16-bit PNG or TIFF stays 16-bit in PNG, gray stays gray; JPEG is 8-bit")
    func colorspace() async throws {
        let origin = try Self.origin()
        let proxy = try Self.start(origin, ["--preserve-hdr"])
        let cases: [(String, String, String)] = [
            ("8.png", "png", "sRGB"), ("16.png", "png", "RGB16"), ("16.png", "jpg", "sRGB"),
            ("8.tif", "png", "sRGB"), ("16.tif", "png", "RGB16"),
            ("g8.png", "png", "B_W"), ("g16.png", "png", "grey16"), ("g16.png", "jpg", "B_W"),
            ("g8.tif", "png", "B_W"), ("g16.tif", "png", "grey16"),
            // Alpha is kept at the source's depth.
            ("a16.png", "png", "RGB16 100x100 alpha"), ("ga16.png", "png", "grey16 100x100 alpha"),
        ]
        for (file, format, expected) in cases {
            let got = try Self.interpretation(try await Self.fetch(proxy, origin, file, "format:\(format)"))
            let want = expected.contains(" ") ? expected : expected + " 100x100"
            #expect(got == want, "\(file) as \(format)")
        }
    }

    @Test("TIFF and JPEG XL results keep 16 bits too, a 10-bit AVIF source keeps them; AVIF, WebP and GIF results are 8-bit")
    func formats() async throws {
        let origin = try Self.origin()
        let proxy = try Self.start(origin, ["--preserve-hdr"])
        for (format, expected) in [("tiff", "RGB16"), ("jxl", "RGB16"), ("avif", "sRGB")] {
            #expect(try Self.interpretation(try await Self.fetch(proxy, origin, "16.png", "format:\(format)")) == expected + " 100x100", "\(format)")
        }
        #expect(try Self.interpretation(try await Self.fetch(proxy, origin, "g16.tif", "format:tiff")) == "grey16 100x100")
        // A 10-bit AVIF source (1204x800) decodes to 16 bits for a PNG result.
        #expect(try Self.interpretation(try await Self.fetch(proxy, origin, "10.avif", "format:png")) == "RGB16 100x100")
        #expect(try Self.interpretation(try await Self.fetch(proxy, origin, "10.avif", "format:png/ph:0")) == "sRGB 100x100")
        for format in ["webp", "gif"] {
            let body = try await Self.fetch(proxy, origin, "16.png", "format:\(format)")
            let image = try CoderRegistry([WebPCoder(), GIFCoder()]).decode(body, options: DecodeOptions(preserve16Bit: true))
            #expect(image.pixelFormat.bitsPerComponent == 8 && image.width == 100, "\(format): \(image.pixelFormat)")
        }
    }

    @Test("No format named: a 16-bit TIFF without alpha is answered as an 8-bit JPEG, one with alpha as a 16-bit PNG")
    func preferredFormat() async throws {
        let origin = try Self.origin()
        let proxy = try Self.start(origin, ["--preserve-hdr"])
        let opaque = try await HTTP.get(proxy.url("/unsafe/resize:fill:100:100/enlarge:1/plain/\(origin.url("16.tif").absoluteString)"))
        #expect(opaque.header("Content-Type") == "image/jpeg")
        #expect(try Self.interpretation(opaque.body) == "sRGB 100x100")
        let alpha = try await HTTP.get(proxy.url("/unsafe/resize:fill:100:100/enlarge:1/plain/\(origin.url("a16.tif").absoluteString)"))
        #expect(alpha.header("Content-Type") == "image/png")
        #expect(try Self.interpretation(alpha.body) == "RGB16 100x100 alpha")
    }

    @Test("TestDownscaleHDR: without preserve_hdr (the default) every result is 8-bit, gray stays gray")
    func downscaleHDR() async throws {
        let origin = try Self.origin()
        let proxy = try Self.start(origin)
        for (file, expected) in [("16.png", "sRGB"), ("16.tif", "sRGB"), ("g16.png", "B_W"), ("g16.tif", "B_W"), ("a16.png", "sRGB")] {
            let got = try Self.interpretation(try await Self.fetch(proxy, origin, file, "format:png"))
            #expect(got.hasPrefix(expected + " 100x100"), "\(file): \(got)")
        }
    }

    @Test("TestPreserveHDROptionOverride: the URL's preserve_hdr wins over the service's; each is its own result")
    func optionOverride() async throws {
        let origin = try Self.origin()
        let plain = try Self.start(origin)
        // The 8-bit result is rendered (and cached) first: the 16-bit URL must not get it.
        #expect(try Self.interpretation(try await Self.fetch(plain, origin, "16.png", "format:png")) == "sRGB 100x100")
        #expect(try Self.interpretation(try await Self.fetch(plain, origin, "16.png", "format:png/preserve_hdr:1")) == "RGB16 100x100")
        #expect(try Self.interpretation(try await Self.fetch(plain, origin, "16.png", "format:png/ph:true")) == "RGB16 100x100")
        #expect(try Self.interpretation(try await Self.fetch(plain, origin, "16.png", "format:png")) == "sRGB 100x100")
        for environment in [["IMGPROXY_PRESERVE_HDR": "true"], ["IMAGE_PROXY_PRESERVE_HDR": "true"]] {
            let preserving = try Self.start(origin, environment: environment)
            #expect(try Self.interpretation(try await Self.fetch(preserving, origin, "16.png", "format:png")) == "RGB16 100x100", "\(environment)")
            #expect(try Self.interpretation(try await Self.fetch(preserving, origin, "16.png", "format:png/preserve_hdr:false")) == "sRGB 100x100")
        }
    }

    @Test("The 16 bits are computed, not widened: samples off the 8-bit grid, high bytes near the 8-bit result")
    func deepSamples() async throws {
        let origin = try Self.origin()
        let proxy = try Self.start(origin)
        for file in ["16.png", "16.tif", "g16.png"] {
            let deep = try PNGCoder().decode(try await Self.fetch(proxy, origin, file, "format:png/ph:1"), options: DecodeOptions(preserve16Bit: true))
            let narrow = try PNGCoder().decode(try await Self.fetch(proxy, origin, file, "format:png"), options: DecodeOptions())
            #expect(deep.pixelFormat.bitsPerComponent == 16 && narrow.pixelFormat.bitsPerComponent == 8)
            #expect(deep.pixelFormat.layout == narrow.pixelFormat.layout && deep.width == narrow.width && deep.height == narrow.height)
            let samples: [UInt16] = deep.pixels.withUnsafeBytes { raw in
                (0..<(deep.pixels.count / 2)).map { raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self) }
            }
            #expect(samples.contains { $0 % 257 != 0 }, "\(file): every sample is an 8-bit value widened")
            // Where the enlargement overshoots below black (basn0g16's corner, a steep ramp down to
            // 0x00ff) each path clamps its own intermediate values: there up to 7 apart.
            let differences = zip(samples, narrow.pixels).map { abs(Int($0 >> 8) - Int($1)) }
            let far = differences.filter { $0 > 2 }.count
            #expect(samples.count == narrow.pixels.count && far * 100 <= samples.count && differences.allSatisfy { $0 <= 8 },
                    "\(file): \(far) samples differ from the 8-bit result by more than 2, at most by \(differences.max() ?? 0)")
        }
    }

    @Test("ImgproxyTransformer: a coloured mark turns a 16-bit gray image RGB16, a gray mark keeps it gray, samples at 16-bit scale")
    func watermarkCompositingSpace() throws {
        // A 4x2 gray16 image at 0x4000, an opaque 2x2 mark: red (8-bit) or mid gray (8-bit).
        let image = try Image(width: 4, height: 2, pixelFormat: .gray16, pixels: [UInt8]((0..<8).flatMap { _ in [UInt8(0x00), 0x40] }))
        let red = try Image(width: 2, height: 2, pixelFormat: .rgb8, pixels: [UInt8]((0..<4).flatMap { _ in [255, 0, 0] as [UInt8] }))
        let gray = try Image(width: 2, height: 2, pixelFormat: .gray8, pixels: [UInt8](repeating: 128, count: 4))
        var options = ImgproxyOptions()
        options.watermarkOpacity = 0.5
        options.watermarkPosition = .init(.nowe)
        let colored = try ImgproxyTransformer(options: options, watermark: red).transform(image)
        #expect(colored.pixelFormat == .rgb16)
        let samples: [UInt16] = colored.pixels.withUnsafeBytes { raw in (0..<(colored.pixels.count / 2)).map { raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self) } }
        // Under the mark: half red over 0x4000 gray; beside it the gray copied into R, G and B.
        #expect(abs(Int(samples[0]) - (65535 + 0x4000) / 2) <= 1 && abs(Int(samples[1]) - 0x4000 / 2) <= 1 && samples[1] == samples[2])
        #expect(samples[6..<9].allSatisfy { $0 == 0x4000 }, "\(samples[6..<9])")
        let grayed = try ImgproxyTransformer(options: options, watermark: gray).transform(image)
        #expect(grayed.pixelFormat == .gray16)
    }

    @Test("TestWatermarkColorspace: 8- and 16-bit marks on 8- and 16-bit images; a coloured mark makes a gray image coloured")
    func watermarkColorspace() async throws {
        let origin = try Self.origin()
        let cases: [(mark: String, [(String, String)])] = [
            ("16.png", [("8.png", "sRGB"), ("g16.png", "RGB16")]),
            ("g16.png", [("8.png", "sRGB"), ("g8.png", "B_W")]),
            ("g8.png", [("g16.png", "grey16")]),
            ("8.png", [("g16.png", "RGB16"), ("16.png", "RGB16")]),
        ]
        for (mark, sources) in cases {
            let proxy = try Self.start(origin, ["--preserve-hdr", "--watermark", TestData.url(Self.files[mark]!).path])
            for (file, expected) in sources {
                let got = try Self.interpretation(try await Self.fetch(proxy, origin, file, "format:png/watermark:0.5"))
                #expect(got == expected + " 100x100", "\(file) with the mark \(mark)")
            }
        }
    }
}
