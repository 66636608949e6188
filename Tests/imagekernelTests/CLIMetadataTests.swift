import CoderJPEG
import CoderPNG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// `convert` keeps every metadata block the source had (as `vips copy` does), orientation reset to
/// 1 once `orient` applied it; `--strip` writes none.
@Suite("imagekernel convert metadata")
struct CLIMetadataTests {
    @Test func convertKeepsAllAndStripRemovesIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ik-metadata-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var photo = try Image(width: 48, height: 32, pixelFormat: .rgb8, pixels: [UInt8](repeating: 90, count: 48 * 32 * 3))
        photo.metadata = MetadataFixture.metadata(orientation: 6)
        photo.orientation = .right
        let source = dir.appendingPathComponent("camera.jpg")
        try JPEGCoder().encode(photo, as: .jpeg, options: EncodeOptions(metadata: .all)).write(to: source)

        let cases: [(arguments: [String], output: String, policy: MetadataPolicy, orientation: ExifOrientation)] = [
            ([], "all.jpg", .all, .right),
            (["--transform", "orient"], "oriented.jpg", .all, .up),
            (["--strip"], "stripped.jpg", .none, .right),
            (["--strip", "--transform", "orient"], "stripped-oriented.jpg", .none, .up),
            ([], "all.png", .all, .right),
        ]
        for (arguments, name, policy, orientation) in cases {
            let output = dir.appendingPathComponent(name).path
            let run = try CLI.run(["convert"] + arguments + [source.path, output])
            #expect(run.status == 0, "\(run.stderr)")
            let file = try Data(contentsOf: URL(fileURLWithPath: output))
            let image = try CoderRegistry([JPEGCoder(), PNGCoder()]).decode(file)
            let kinds: MetadataFixture.Kinds = name.hasSuffix(".png") ? [.exif, .xmp] : .all
            let problems = MetadataFixture.problems(readBack: image.metadata, file: file, policy: policy, orientation: orientation, kinds: kinds)
            #expect(problems.isEmpty, "convert \(arguments) → \(name): \(problems)")
            if policy == .none && orientation == .up {
                #expect(image.metadata.isEmpty, "--strip of an oriented image writes nothing")
            }
        }
    }
}
