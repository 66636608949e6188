import Foundation
import ImageKernelTestSupport
import Testing

/// `info`'s frames and loop columns and `convert` between the animated formats.
@Suite("imagekernel with animations")
struct CLIAnimationTests {
    /// REFERENCE-ANIM.tsv's row for a path: width, height, n_frames, loop, durations, frame-0 hash.
    static func reference(_ path: String) throws -> [String] {
        let table = try String(contentsOf: TestData.url("REFERENCE-ANIM.tsv"), encoding: .utf8)
        let line = try #require(table.split(separator: "\n").first { $0.hasPrefix(path + "\t") })
        return line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    }

    @Test(arguments: [
        "webp/generated/anim_lossless_alpha.webp", "webp/pillow/iss634.webp", "webp/libwebp-test-data/test.webp",
        "gif/generated/anim_local_palettes.gif", "gif/pillow/chi.gif", "gif/pillow/no_palette.gif",
    ])
    func infoPrintsFrameZeroHashFramesAndLoop(_ path: String) throws {
        let row = try Self.reference(path)
        let output = try CLI.run(["info", TestData.url(path).path])
        #expect(output.status == 0, "\(output.stderr)")
        let line = try #require(output.lines.dropFirst().first)
        #expect(line.count == 9)
        #expect(Array(line[2...3]) == [row[2], row[3]])
        #expect(line[6] == row[7], "frame 0's hash")
        #expect(line[7] == row[4], "frames")
        #expect(line[8] == row[5], "loop (- when the file gives none)")
    }

    private func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ik-anim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// `info`'s frames and loop columns for a file.
    private func framesAndLoop(_ path: String) throws -> [String] {
        let line = try #require(try CLI.run(["info", path]).lines.dropFirst().first)
        return Array(line.suffix(2))
    }

    @Test func convertKeepsAnAnimationAnimated() throws {
        let dir = try scratch()
        let source = TestData.url("webp/generated/anim_mixed_12f.webp").path
        let lossless = dir.appendingPathComponent("copy.webp").path
        let output = try CLI.run(["convert", source, lossless, "--lossless"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(try framesAndLoop(lossless) == ["12", "0"])
        let png = dir.appendingPathComponent("frame0.png").path
        #expect(try CLI.run(["convert", source, png]).status == 0)
        #expect(try framesAndLoop(png) == ["1", "-"], "formats without animation get frame 0")
    }

    @Test func convertTurnsAnimatedGIFIntoWebPAndBack() throws {
        let dir = try scratch()
        let gif = TestData.url("gif/generated/anim_local_palettes.gif").path
        let webp = dir.appendingPathComponent("anim.webp").path
        let back = dir.appendingPathComponent("anim.gif").path
        #expect(try CLI.run(["convert", gif, webp, "--lossless"]).status == 0)
        #expect(try CLI.run(["convert", webp, back]).status == 0)
        let hashes = try [gif, webp, back].map { path -> [String] in
            let line = try #require(try CLI.run(["info", path]).lines.dropFirst().first)
            return [line[6], line[7], line[8]]
        }
        #expect(hashes[0] == hashes[1], "lossless WebP keeps frame 0, the frame count and the loop")
        #expect(hashes[1] == hashes[2], "and back to GIF (at most 256 colours a frame) again")
        #expect(hashes[0][1] == "6" && hashes[0][2] == "2")
    }
}
