import Foundation
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

    static func run(_ arguments: [String], stdin: String? = nil) throws -> Output {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
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
        #expect(output.lines.first == ["source", "format", "width", "height", "pixel_format", "orientation", "sha256"])
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
        #expect(output.lines.first == ["finished", "skipped", "seconds", "images_per_second"])
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
