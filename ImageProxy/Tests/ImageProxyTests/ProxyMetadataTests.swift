import CoderJPEG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// The metadata policy through the running proxy: no EXIF, XMP or IPTC by default (GPS never),
/// with `--keep-copyright` exactly the copyright and creator of each kind, with
/// `--no-strip-metadata` all of it.
@Suite("image-proxy metadata", .serialized)
struct ProxyMetadataTests {
    /// Landscape_0.jpg (1800x1200) with the fixture's EXIF, XMP and IPTC. Orientation 6 sends
    /// it down the RGB path (the proxy orients it); orientation 1 with a resize to JPEG down the
    /// planar one.
    static func source(orientation: Int) throws -> Data {
        var photo = try JPEGCoder().decode(try TestData.data("exif-orientation/recurser/Landscape_0.jpg"), options: DecodeOptions())
        photo.metadata = MetadataFixture.metadata(orientation: orientation)
        photo.orientation = ExifOrientation(rawValue: orientation)!
        return try JPEGCoder().encode(photo, as: .jpeg, options: EncodeOptions(quality: 0.9, metadata: .all))
    }

    @Test("by default results carry no metadata; --keep-copyright keeps exactly copyright and creator; --no-strip-metadata all")
    func policies() async throws {
        let origin = try NginxServer(tls: false, files: ["rotated.jpg": try Self.source(orientation: 6), "upright.jpg": try Self.source(orientation: 1)])
        for (flags, policy) in [([String](), MetadataPolicy.none), (["--keep-copyright"], .copyright), (["--no-strip-metadata"], .all)] {
            let proxy = try ProxyProcess(["--allow-origin", origin.prefix] + flags)
            for name in ["rotated.jpg", "upright.jpg"] {
                let served = try await HTTP.get(proxy.url(Paths.plain(origin.url(name), spec: "resize:fit:300:300", format: "jpg")))
                #expect(served.status == 200)
                let image = try JPEGCoder().decode(served.body, options: DecodeOptions())
                #expect(image.orientation == .up && image.width == (name == "rotated.jpg" ? 200 : 300), "\(name): oriented, resized")
                let problems = MetadataFixture.problems(readBack: image.metadata, file: served.body, policy: policy, orientation: .up, kinds: .all)
                #expect(problems.isEmpty, "\(flags) \(name): \(problems)")
                if policy == .none {
                    #expect(image.metadata.isEmpty && !MetadataFixture.contains(served.body, Array("Exif".utf8) + [0, 0]), "\(name): no EXIF at all")
                }
            }
        }
    }
}
