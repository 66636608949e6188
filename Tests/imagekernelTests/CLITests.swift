import Foundation
import ImageKernelTestSupport
import Testing

/// Runs the built `imagekernel` binary as a user would and checks DESIGN.md's output formats.
struct CLI {
    static var binary: URL {
        let dir = Bundle.main.executableURL?.deletingLastPathComponent()
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [dir, dir.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("imagekernel")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return dir.appendingPathComponent("imagekernel")
    }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var lines: [[String]] { stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) } }
    }

    /// Runs a shell command line under `script`, which gives it a pseudo-terminal as a person at a
    /// shell would: its exit status and everything it wrote (standard output and error mixed).
    static func runOnTerminal(_ command: String) throws -> (status: Int32, text: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    /// Runs the tool with `arguments`; `environment` is added to the test process's own.
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> Output {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self), stderr: String(decoding: stderrData, as: UTF8.self))
    }
}

@Suite("imagekernel command line")
struct CLITests {
    private func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ik-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func infoPrintsTheHeaderAndAnErrorLinePerFailedSourceAndExitsNonZero() throws {
        let missing = "/nonexistent/\(UUID().uuidString).png"
        let output = try CLI.run(["info", missing])
        #expect(output.status != 0)
        #expect(output.lines.first == ["source", "format", "width", "height", "pixel_format", "orientation", "sha256", "frames", "loop"])
        let line = try #require(output.lines.dropFirst().first)
        #expect(line.count == 4)
        #expect(Array(line.prefix(3)) == [missing, "error", "not_found"])
    }

    @Test func infoReportsUndecodableDataAsATypedError() throws {
        let file = try scratch().appendingPathComponent("noise.bin")
        try Data((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 131) }).write(to: file)
        let output = try CLI.run(["info", file.path])
        #expect(output.status != 0)
        #expect(output.lines.dropFirst().first?[1] == "error")
        #expect(output.lines.dropFirst().first?[2] == "no_coder")
    }

    @Test func fetchPrintsItsHeaderWhenPiped() throws {
        let output = try CLI.run(["fetch", "/nonexistent.png"])
        #expect(output.lines.first == ["source", "cache_type", "width", "height", "bytes", "ms"])
        #expect(output.lines.count == 2)
        #expect(!output.stderr.contains("["), "no progress bar when piped")
    }

    @Test func prefetchSummarisesFinishedAndSkipped() throws {
        let dir = try scratch()
        let list = dir.appendingPathComponent("list.txt")
        try "# comment\n/nonexistent/a.png\n\n/nonexistent/b.png\n".write(to: list, atomically: true, encoding: .utf8)
        let output = try CLI.run(["prefetch", "--from", list.path])
        #expect(output.status == 0)
        #expect(output.lines.first == ["finished", "skipped", "seconds", "images_per_second", "retried", "failed"])
        let summary = try #require(output.lines.dropFirst().first)
        #expect(Array(summary.prefix(2)) == ["2", "2"])
        #expect(Double(summary[2]) != nil && Double(summary[3]) != nil)
    }

    @Test func badArgumentsAreRejected() throws {
        #expect(try CLI.run(["fetch", "--thumbnail", "huge", "x.png"]).status != 0)
        #expect(try CLI.run(["fetch", "--options", "noSuchOption", "x.png"]).status != 0)
        #expect(try CLI.run(["convert", "a.png", "b.unknownext"]).status != 0)
    }
}

@Suite("imagekernel info against the reference table")
struct CLIReferenceTests {
    /// Rows of Tests/Corpora/REFERENCE.tsv by path: width, height, sha256_rgba, sha256_rgba_hb16.
    static func reference() throws -> [String: [String]] {
        let table = try String(contentsOf: TestData.url("REFERENCE.tsv"), encoding: .utf8)
        var rows: [String: [String]] = [:]
        for line in table.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if fields.count > 9, fields[1] != "ERROR" { rows[fields[0]] = fields }
        }
        return rows
    }

    @Test(arguments: [
        "pngsuite/basn2c08.png", "pngsuite/basn3p04.png", "pngsuite/basi6a16.png", "pngsuite/basn0g16.png",
        "pngsuite/tbrn2c08.png", "pngsuite/basi0g01.png",
    ])
    func pngHashesMatch(_ path: String) throws {
        let row = try #require(try Self.reference()[path])
        let output = try CLI.run(["info", TestData.url(path).path])
        #expect(output.status == 0, "\(output.stdout)")
        let line = try #require(output.lines.dropFirst().first)
        #expect(line[1] == "png")
        #expect(line[2] == row[2] && line[3] == row[3])
        let expected = line[4].hasPrefix("gray") && path.contains("16") ? row[9] : row[5]
        #expect(line[6] == expected, "\(path)")
    }
}

@Suite("imagekernel cache and disk")
struct CLICacheTests {
    @Test func fetchFillsTheDiskCacheAndCacheCommandsReadAndEmptyIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ik-cache-\(UUID().uuidString)")
        let sample = TestData.url("pngsuite/basn2c08.png").path
        let first = try CLI.run(["fetch", "--cache-dir", dir.path, sample])
        #expect(first.status == 0, "\(first.stdout)")
        #expect(first.lines.dropFirst().first?[1] == "none")
        let second = try CLI.run(["fetch", "--cache-dir", dir.path, sample])
        #expect(second.lines.dropFirst().first?[1] == "disk", "a new process finds the entry on disk")
        #expect(second.lines.dropFirst().first.map { Array($0[2...3]) } == ["32", "32"])

        let stats = try CLI.run(["cache", "stats", "--cache-dir", dir.path])
        #expect(stats.lines.first == ["directory", "entries", "bytes"])
        #expect(stats.lines.dropFirst().first?[1] == "1")
        let clear = try CLI.run(["cache", "clear", "--cache-dir", dir.path])
        #expect(clear.status == 0)
        #expect(clear.lines.dropFirst().first?[0] == "1")
        #expect(try CLI.run(["cache", "stats", "--cache-dir", dir.path]).lines.dropFirst().first?[1] == "0")
    }

    @Test func cleanWithMaxAgeZeroRemovesEverything() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ik-clean-\(UUID().uuidString)")
        _ = try CLI.run(["fetch", "--cache-dir", dir.path, TestData.url("pngsuite/basn0g08.png").path, TestData.url("pngsuite/basn6a08.png").path])
        let clean = try CLI.run(["cache", "clean", "--cache-dir", dir.path, "--max-age", "0"])
        #expect(clean.lines.first == ["removed_entries", "removed_bytes", "entries", "bytes"])
        #expect(clean.lines.dropFirst().first.map { [$0[0], $0[2]] } == ["2", "0"])
    }
}

extension CLIReferenceTests {
    @Test(arguments: [
        "jpeg/libjpeg-turbo/testorig.jpg", "jpeg/libjpeg-turbo/testimgari.jpg", "jpeg/mozilla/jpg-cmyk-1.jpg",
        "jpeg/mozilla/jpg-progressive.jpg", "jpeg/mozilla/jpg-gray.jpg", "exif-orientation/pillow/hopper_orientation_6.jpg",
    ])
    func jpegHashesAndOrientationMatch(_ path: String) throws {
        let row = try #require(try Self.reference()[path], "\(path) not in REFERENCE.tsv")
        let output = try CLI.run(["info", TestData.url(path).path])
        #expect(output.status == 0, "\(output.stdout)")
        let line = try #require(output.lines.dropFirst().first)
        #expect(line[1] == "jpeg")
        #expect(line[2] == row[2] && line[3] == row[3])
        #expect(line[5] == (Int(row[7]).map { $0 >= 1 ? String($0) : "1" } ?? "1"), "orientation of \(path)")
        #expect(line[6] == row[5], "\(path)")
    }
}


@Suite("imagekernel over HTTP")
struct CLIHTTPTests {
    @Test func fetchAndPrefetchLoadHTTPURLsAndCacheThem() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let png = try Data(contentsOf: TestData.url("pngsuite/basn6a08.png"))
        let jpeg = try Data(contentsOf: TestData.url("jpeg/libjpeg-turbo/testorig.jpg"))
        server.addFile("a.png", data: png)
        server.addFile("b.jpg", data: jpeg)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ik-http-\(UUID().uuidString)")
        let urls = [server.url("/files/a.png").absoluteString, server.url("/files/b.jpg").absoluteString]

        let fetch = try CLI.run(["fetch", "--cache-dir", dir.path] + urls + [server.url("/status/404").absoluteString])
        #expect(fetch.status != 0, "the 404 makes the run fail")
        let rows = Array(fetch.lines.dropFirst())
        #expect(rows.count == 3)
        #expect(rows[0][1] == "none" && rows[0][2] == "32" && rows[0][4] == "\(png.count)")
        #expect(rows[1][1] == "none" && rows[1][2] == "227" && rows[1][3] == "149")
        #expect(rows[2][1] == "error" && rows[2][2] == "http_status")

        let list = dir.appendingPathComponent("list.txt")
        try urls.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let prefetch = try CLI.run(["prefetch", "--cache-dir", dir.path, "--from", list.path])
        #expect(prefetch.lines.dropFirst().first.map { Array($0.prefix(2)) } == ["2", "0"])
        #expect(server.requestCount(path: "/files/a.png") == 1, "the prefetch was answered from the disk cache")
    }
}

@Suite("imagekernel on a terminal")
struct CLITerminalTests {
    /// `script` gives the tool a pseudo-terminal, as a person at a shell would.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs util-linux script"))
    func fetchDrawsAProgressBarOnATerminal() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ik-tty-\(UUID().uuidString)")
        let command = [CLI.binary.path, "fetch", "--cache-dir", dir.path, TestData.url("pngsuite/basn2c08.png").path,
                       TestData.url("pngsuite/basn0g08.png").path].joined(separator: " ")
        let (status, text) = try CLI.runOnTerminal(command)
        #expect(status == 0, "\(text)")
        #expect(text.contains("] 2/2"), "a progress bar was drawn: \(text.debugDescription)")
        #expect(text.contains("source\tcache_type\twidth\theight\tbytes\tms"))
    }
}

@Suite("imagekernel convert and bench")
struct CLIConvertBenchTests {
    @Test func convertEncodesByTheOutputExtension() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ik-convert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let jpeg = TestData.url("jpeg/libjpeg-turbo/testorig.jpg").path
        let png = dir.appendingPathComponent("out.png").path
        #expect(try CLI.run(["convert", jpeg, png]).status == 0)
        let original = try CLI.run(["info", jpeg]).lines[1], converted = try CLI.run(["info", png]).lines[1]
        #expect(converted[1] == "png")
        #expect(converted[6] == original[6], "PNG is lossless: the pixels hash the same")

        let thumb = dir.appendingPathComponent("thumb.jpg").path
        let output = try CLI.run(["convert", "--thumbnail", "64x64", "--quality", "80", png, thumb])
        #expect(output.status == 0)
        let info = try CLI.run(["info", thumb]).lines[1]
        #expect(Array(info[1...3]) == ["jpeg", "64", "42"])
    }

    @Test func benchPrintsMedianMinMaxPerFile() throws {
        let files = [TestData.url("pngsuite/basn6a08.png").path, TestData.url("jpeg/mozilla/jpg-progressive.jpg").path]
        for operation in ["decode", "thumbnail", "encode"] {
            let output = try CLI.run(["bench", operation] + files + ["--iterations", "3", "--size", "16x16"])
            #expect(output.status == 0, "\(operation): \(output.stdout)")
            #expect(output.lines.first == ["file", "operation", "iterations", "median_ms", "min_ms", "max_ms"])
            #expect(output.lines.count == 3)
            for row in output.lines.dropFirst() {
                let (median, low, high) = (Double(row[3])!, Double(row[4])!, Double(row[5])!)
                #expect(row[1] == operation && low <= median && median <= high)
            }
        }
    }
}

@Suite("imagekernel with HEIC and AVIF")
struct CLIHEIFTests {
    /// `info` prints libheif's own decode hash (REFERENCE-LIBHEIF.tsv) with orientation 1.
    @Test(arguments: ["heif/libheif/example.heic", "heif/av1-avif-Link-U/kimono.rotate90.avif", "heif/pillow_heif/RGBA_10__29x100.heif"])
    func infoMatchesLibheifReference(_ path: String) throws {
        let table = try String(contentsOf: TestData.url("REFERENCE-LIBHEIF.tsv"), encoding: .utf8)
        let row = try #require(table.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }.first { $0.first == path })
        let output = try CLI.run(["info", TestData.url(path).path])
        #expect(output.status == 0, "\(output.stderr)")
        let line = try #require(output.lines.dropFirst().first)
        #expect(["heic", "avif"].contains(line[1]))
        #expect(line[2] == row[2] && line[3] == row[3] && line[5] == "1" && line[6] == row[6], "\(path)")
    }

    @Test func convertWritesAVIFAndHEICByExtension() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ik-cli-heif-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = TestData.url("heif/libheif/example.heic").path
        for (name, format) in [("out.avif", "avif"), ("thumb.heic", "heic")] {
            let target = dir.appendingPathComponent(name).path
            let output = try CLI.run(["convert", "--thumbnail", "200x200", source, target])
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.lines.dropFirst().first.map { Array($0[2...4]) } == [format, "200", "133"])
            let info = try CLI.run(["info", target])
            #expect(info.lines.dropFirst().first.map { Array($0[1...3]) } == [format, "200", "133"])
        }
    }
}
