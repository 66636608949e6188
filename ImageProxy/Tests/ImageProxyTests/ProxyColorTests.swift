import CoderJPEG
import CoderPNG
import ColorLCMS
import Foundation
import ImageKernel
import ImageKernelTestSupport
import ImageProxyCore
import Testing
import Transformers

/// Tagged sources through the running proxy: by default converted to sRGB (right even in a viewer
/// that ignores profiles), with `--keep-color-profile` carried untouched.
@Suite("image-proxy colour management", .serialized)
struct ProxyColorTests {
    static let ghostscript = "/usr/share/color/icc/ghostscript/"

    /// Landscape_0.jpg (1800x1200) converted by lcms into the profile's space, tagged with it, and
    /// the untagged photo encoded the same way (so both sources carry one generation of JPEG loss).
    static func sources(profile name: String) throws -> (tagged: Data, plain: Data, profile: [UInt8]) {
        let profile = [UInt8](try Data(contentsOf: URL(fileURLWithPath: ghostscript + name)))
        let photo = try JPEGCoder().decode(try TestData.data("exif-orientation/recurser/Landscape_0.jpg"), options: DecodeOptions())
        let tagged = try LCMSColorConverter().convert(photo, ColorConversion(target: .profile(profile)))
        let options = EncodeOptions(quality: 0.95)
        return (try JPEGCoder().encode(tagged, as: .jpeg, options: options), try JPEGCoder().encode(photo, as: .jpeg, options: options), profile)
    }

    static func meanDifference(_ a: Image, _ b: Image) -> Double {
        let (x, y) = (a.rgba8Pixels(), b.rgba8Pixels())
        var total = 0
        for i in 0..<min(x.count, y.count) { total += abs(Int(x[i]) - Int(y[i])) }
        return Double(total) / Double(max(1, x.count * 3 / 4))
    }

    @Test("a ProPhoto and an Adobe RGB JPEG resized to JPEG come out sRGB, untagged, as the untagged photo does",
          arguments: ["rommrgb.icc", "a98.icc"])
    func taggedJPEGToJPEG(profile: String) async throws {
        let (source, plainSource, iccProfile) = try Self.sources(profile: profile)
        let origin = try NginxServer(tls: false, files: ["tagged.jpg": source, "plain.jpg": plainSource])
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        for format in ["jpg", "png"] {
            let spec = "resize:fill:300:200/q:90"
            let served = try await HTTP.get(proxy.url(Paths.plain(origin.url("tagged.jpg"), spec: spec, format: format)))
            let plain = try await HTTP.get(proxy.url(Paths.plain(origin.url("plain.jpg"), spec: spec, format: format)))
            #expect(served.status == 200 && plain.status == 200)
            let registry = CoderRegistry([JPEGCoder(), PNGCoder()])
            let image = try registry.decode(served.body), reference = try registry.decode(plain.body)
            #expect(image.iccProfile == nil, "converted to sRGB: no profile written")
            #expect(image.width == 300 && image.height == 200)
            // Read as a viewer that ignores profiles reads it. The JPEG source in a wide-gamut
            // space quantises its colours coarser than the sRGB one, and the tagged JPEG's planes
            // are converted after the resize (chroma from each block's mean converted colour):
            // measured 1.7-2.1 for JPEG (1.6-1.9 when it took the RGB path), 0.7-1.1 for PNG.
            let mean = Self.meanDifference(image, reference)
            print("proxy \(profile) -> \(format): mean \(mean) levels from the untagged photo's render")
            #expect(mean <= (format == "png" ? 1.5 : 2.5))
        }
        let kept = try ProxyProcess(["--allow-origin", origin.prefix, "--keep-color-profile"])
        let response = try await HTTP.get(kept.url(Paths.plain(origin.url("tagged.jpg"), spec: "resize:fill:300:200/q:90", format: "jpg")))
        let carried = try JPEGCoder().decode(response.body, options: DecodeOptions())
        #expect(carried.iccProfile == iccProfile, "--keep-color-profile writes the source's profile")
        // Unconverted, the same pixels are far from the photo: the default's conversion is what fixes them.
        let plain = try await HTTP.get(kept.url(Paths.plain(origin.url("plain.jpg"), spec: "resize:fill:300:200/q:90", format: "jpg")))
        let untaggedRender = try JPEGCoder().decode(plain.body, options: DecodeOptions())
        #expect(Self.meanDifference(carried, untaggedRender) > 2)
    }

    @Test("a source whose profile lcms cannot read is served as sRGB, not refused")
    func unreadableProfileIsIgnored() async throws {
        var photo = try JPEGCoder().decode(try TestData.data("exif-orientation/recurser/Landscape_1.jpg"), options: DecodeOptions())
        let plain = try JPEGCoder().encode(photo, as: .jpeg, options: EncodeOptions(quality: 0.95))
        // A profile header that declares its own size but holds nothing lcms can use.
        var garbage = [UInt8](repeating: 0x5A, count: 200)
        garbage.replaceSubrange(0..<4, with: [0, 0, 0, 200])
        garbage.replaceSubrange(36..<40, with: Array("acsp".utf8))
        photo.iccProfile = garbage
        let broken = try JPEGCoder().encode(photo, as: .jpeg, options: EncodeOptions(quality: 0.95))
        #expect(JPEGCoder.embeddedICCProfile(broken) == garbage)
        let origin = try NginxServer(tls: false, files: ["broken.jpg": broken, "plain.jpg": plain])
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        for format in ["jpg", "png"] {
            let served = try await HTTP.get(proxy.url(Paths.plain(origin.url("broken.jpg"), spec: "resize:fill:300:200/q:90", format: format)))
            #expect(served.status == 200, "\(format): \(String(decoding: served.body.prefix(200), as: UTF8.self))")
            let image = try CoderRegistry([JPEGCoder(), PNGCoder()]).decode(served.body)
            #expect(image.iccProfile == nil && image.width == 300)
        }
    }

    @Test("a JPEG whose matrix/shaper profile takes the direct path renders on the planes, converted, as the RGB path renders it")
    func taggedJPEGOnThePlanes() throws {
        let (source, plain, _) = try Self.sources(profile: "a98.icc")
        let limits = ProxyConfiguration(allowedOrigins: ["http://127.0.0.1/"])
        let resize = ResizeTransformer(.fill, width: 300, height: 200)
        let planar = try #require(try PlanarRender.render(source, resize: resize, quality: 90, limits: limits, convertsColor: true))
        let onPlanes = try JPEGCoder().decode(planar, options: DecodeOptions())
        #expect(onPlanes.iccProfile == nil && onPlanes.width == 300 && onPlanes.height == 200)
        // The RGB path: decoded, resized, converted by lcms itself, encoded.
        let decoded = try JPEGCoder().decode(source, options: DecodeOptions(shrinkOnLoad: resize.shrinkOnLoad))
        let converted = try LCMSColorConverter(allowsDirectPath: false).convert(try resize.transform(decoded), .sRGB)
        let viaRGB = try JPEGCoder().decode(try JPEGCoder().encode(converted, as: .jpeg, options: EncodeOptions(quality: 0.9)), options: DecodeOptions())
        let mean = Self.meanDifference(onPlanes, viaRGB)
        // What the planes differ by from the RGB path for the untagged photo, with no colour at all.
        let plainPlanes = try JPEGCoder().decode(try #require(try PlanarRender.render(plain, resize: resize, quality: 90, limits: limits)), options: DecodeOptions())
        let plainDecoded = try resize.transform(try JPEGCoder().decode(plain, options: DecodeOptions(shrinkOnLoad: resize.shrinkOnLoad)))
        let plainRGB = try JPEGCoder().decode(try JPEGCoder().encode(plainDecoded, as: .jpeg, options: EncodeOptions(quality: 0.9)), options: DecodeOptions())
        let floor = Self.meanDifference(plainPlanes, plainRGB)
        print("a98 on the planes vs the RGB path through lcms: mean \(mean) levels; untagged planes vs RGB: \(floor)")
        #expect(mean <= floor + 0.5)
        // Unconverted planes are far from it: the conversion is what brings them there.
        let unconverted = try #require(try PlanarRender.render(source, resize: resize, quality: 90, limits: limits))
        #expect(Self.meanDifference(try JPEGCoder().decode(unconverted, options: DecodeOptions()), viaRGB) > 2)
    }
}
