import Foundation
import ImageKernelTestSupport
import Testing

@Suite("imagekernel --transform and bench resize")
struct CLITransformTests {
    @Test func convertAppliesATransformChain() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ik-transform-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = TestData.url("exif-orientation/pillow/hopper_orientation_6.jpg").path
        let png = dir.appendingPathComponent("out.png").path
        let output = try CLI.run(["convert", "--transform", "orient/resize:fill:40:30/round:6", source, png])
        #expect(output.status == 0, "\(output.stderr)")
        let info = try #require(try CLI.run(["info", png]).lines.dropFirst().first)
        #expect(Array(info[1...5]) == ["png", "40", "30", "rgba8", "1"])
    }

    /// An SVG is drawn at the resize's box: a 100000x100000 document (refused at its own size,
    /// over the pixel limit) converts to a 300 px PNG; `info` renders it at its own size.
    @Test func convertRendersAnSVGAtTheResizesBox() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ik-svg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let huge = TestData.url("broken/svg/huge-canvas.svg").path
        let png = dir.appendingPathComponent("out.png").path
        let output = try CLI.run(["convert", "--transform", "resize:fit:300:300", huge, png])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.lines.dropFirst().first.map { Array($0[2...4]) } == ["png", "300", "300"])
        let refused = try CLI.run(["info", huge])
        #expect(refused.lines.dropFirst().first?[1] == "error" && refused.lines.dropFirst().first?[2] == "pixel_limit_exceeded")
        let info = try #require(try CLI.run(["info", TestData.url("svg/resvg/shapes/rect/simple-case.svg").path]).lines.dropFirst().first)
        #expect(Array(info[1...4]) == ["svg", "200", "200", "rgba8"])
    }

    /// A vector source is drawn at the box it is resized to, larger than its own size too (as
    /// imgproxy does whatever `enlarge` says): a 200x100 icon fit into 800x800 is 800x400, not 200x100,
    /// through `convert` and through `fetch` (the manager's path), and its edge stays sharp.
    @Test func anSVGResizedLargerThanItsOwnSizeIsDrawnAtTheBox() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ik-svg-up-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let icon = dir.appendingPathComponent("icon.svg")
        try Data("""
            <svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="100" height="100" fill="#ff0000"/>\
            <rect x="100" width="100" height="100" fill="#0000ff"/></svg>
            """.utf8).write(to: icon)
        let png = dir.appendingPathComponent("out.png").path
        let output = try CLI.run(["convert", icon.path, png, "--transform", "resize:fit:800:800"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.lines.dropFirst().first.map { Array($0[2...4]) } == ["png", "800", "400"])
        let fill = try CLI.run(["convert", icon.path, png, "--transform", "resize:fill:300:300"])
        #expect(fill.lines.dropFirst().first.map { Array($0[2...4]) } == ["png", "300", "300"])
        let fetched = try CLI.run(["fetch", "--transform", "resize:fit:800:800", icon.path])
        #expect(fetched.status == 0, "\(fetched.stdout)\(fetched.stderr)")
        #expect(fetched.lines.dropFirst().first.map { Array($0[2...3]) } == ["800", "400"])
        // Untransformed, the document keeps its own size.
        let info = try #require(try CLI.run(["info", icon.path]).lines.dropFirst().first)
        #expect(Array(info[1...3]) == ["svg", "200", "100"])
    }

    @Test func fetchAppliesATransformAndReportsTheTransformedSize() throws {
        let source = TestData.url("exif-orientation/recurser/Landscape_6.jpg").path
        let output = try CLI.run(["fetch", "--transform", "orient/resize:fit:90:90", source])
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
        #expect(output.lines.first == ["source", "cache_type", "width", "height", "bytes", "ms"])
        let line = try #require(output.lines.dropFirst().first)
        #expect(line[2] == "90" && line[3] == "60")
    }

    @Test func aBadSpecIsRejectedNamingTheStep() throws {
        for command in [["fetch", "x.png"], ["convert", "x.png", "y.png"]] {
            let output = try CLI.run(command + ["--transform", "orient/resize:fit:0:10"])
            #expect(output.status != 0)
            #expect(output.stderr.contains("step 2"), "\(output.stderr)")
        }
    }

    @Test func convertCompositesTheWatermarkFileAndFlattensOnTheBackground() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ik-watermark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = TestData.url("exif-orientation/recurser/Landscape_6.jpg").path
        let mark = TestData.url("exif-orientation/pillow/hopper_orientation_6.jpg").path
        let plain = dir.appendingPathComponent("plain.png").path, marked = dir.appendingPathComponent("marked.png").path
        let spec = "orient/resize:fit:90:90/pad:0:0:10:0/background:ff0000"
        #expect(try CLI.run(["convert", "--transform", spec, source, plain]).status == 0)
        let output = try CLI.run(["convert", "--transform", spec + "/watermark:1:re:0.5", "--watermark", mark, source, marked])
        #expect(output.status == 0, "\(output.stderr)")
        let plainInfo = try #require(try CLI.run(["info", plain]).lines.dropFirst().first)
        let markedInfo = try #require(try CLI.run(["info", marked]).lines.dropFirst().first)
        // 90x60 padded to 90x70 and flattened: RGB; the tiled watermark changes the pixels.
        #expect(Array(plainInfo[1...4]) == ["png", "90", "70", "rgb8"])
        #expect(Array(markedInfo[1...4]) == ["png", "90", "70", "rgb8"])
        #expect(plainInfo[6] != markedInfo[6])
    }

    @Test func aCachedWatermarkedResultIsKeyedByTheWatermarkFile() throws {
        // The step's key names opacity, place and scale only: with a cache directory, a second
        // watermark must not be served the first one's result.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ik-watermark-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = TestData.url("pngsuite/basn2c08.png").path
        let marks = [TestData.url("exif-orientation/pillow/hopper_orientation_6.jpg").path, TestData.url("pngsuite/basn6a08.png").path]
        func fetch(_ mark: String, _ out: String) throws -> (cacheType: String, bytes: Data) {
            let outDir = dir.appendingPathComponent(out)
            let run = try CLI.run([
                "fetch", "--cache-dir", dir.appendingPathComponent("cache").path, "--transform", "resize:fit:32:32/watermark:1:re:0.5",
                "--watermark", mark, "--out", outDir.path, source,
            ])
            #expect(run.status == 0, "\(run.stderr)")
            let cacheType = try #require(run.lines.dropFirst().first?[1])
            return (cacheType, try Data(contentsOf: outDir.appendingPathComponent("basn2c08.png")))
        }
        let first = try fetch(marks[0], "a")
        let second = try fetch(marks[1], "b")
        let again = try fetch(marks[0], "c")
        // The second run finds the source on disk but not a result for its watermark.
        #expect(first.cacheType == "none" && second.cacheType == "disk" && again.cacheType == "disk", "\([first, second, again].map(\.cacheType))")
        #expect(first.bytes != second.bytes, "a new watermark is a new result")
        #expect(again.bytes == first.bytes, "the same watermark file finds its result")
    }

    @Test func aWatermarkStepWithoutWatermarkIsAUsageError() throws {
        let output = try CLI.run(["convert", "x.png", "y.png", "--transform", "watermark:0.5"])
        #expect(output.status == 64)
        #expect(output.stderr.contains("no watermark image is configured"), "\(output.stderr)")
        let missing = try CLI.run(["convert", TestData.url("exif-orientation/recurser/Landscape_6.jpg").path, "/tmp/ik-never.png", "--transform", "watermark:0.5", "--watermark", "/nonexistent/mark.png"])
        #expect(missing.status != 0 && missing.stderr.contains("--watermark"), "\(missing.stderr)")
    }

    @Test func benchResizePrintsMedianMinMax() throws {
        let file = TestData.url("exif-orientation/pillow/hopper_orientation_3.jpg").path
        for extra in [["--size", "50x50", "--filter", "bilinear"], ["--transform", "blur:1.5", "--threads", "1"]] {
            let output = try CLI.run(["bench", "resize", file, "--iterations", "2"] + extra)
            #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
            #expect(output.lines.first == ["file", "operation", "iterations", "median_ms", "min_ms", "max_ms"])
            let row = try #require(output.lines.dropFirst().first)
            #expect(row[1] == "resize" && Double(row[3]) != nil)
        }
    }
}
