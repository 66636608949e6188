import Foundation
import ImageKernelTestSupport
import Testing

/// `imagekernel prefetch`: retries, per-host limits, streamed lists, the summary's columns.
@Suite("imagekernel prefetch in bulk")
struct PrefetchCLITests {
    private func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ik-bulk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    private func list(_ urls: [String], in dir: URL) throws -> URL {
        let file = dir.appendingPathComponent("list.txt")
        try urls.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test func summaryEndsWithRetriedAndFailedColumns() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let png = try TestData.data("pngsuite/basn6a08.png")
        server.addFile("a.png", data: png)
        server.addFile("b.png", data: png)
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let urls = [server.url("/files/a.png"), server.url("/flaky/1/b.png?status=503&Retry-After=0"), server.url("/status/404")]
        let output = try CLI.run(["prefetch", "--cache-dir", dir.path, "--retries", "2", "--from", try list(urls.map(\.absoluteString), in: dir).path])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.lines.first == ["finished", "skipped", "seconds", "images_per_second", "retried", "failed"])
        let row = try #require(output.lines.dropFirst().first)
        #expect(row.count == 6)
        #expect(Array(row.prefix(2)) == ["3", "1"], "the 404 is the only failure")
        #expect(Array(row.suffix(2)) == ["1", "1"], "the 503 was retried once; the 404 failed")
        #expect(server.requestCount(path: "/status/404") == 1, "a 404 is never retried")
        #expect(server.requestCount(path: "/flaky/1/b.png") == 2)
    }

    @Test func retriesZeroTurnsRetriesOff() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.addFile("b.png", data: try TestData.data("pngsuite/basn6a08.png"))
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let output = try CLI.run(["prefetch", "--cache-dir", dir.path, "--retries", "0", "--from",
                                  try list([server.url("/flaky/1/b.png?status=503").absoluteString], in: dir).path])
        let row = try #require(output.lines.dropFirst().first)
        #expect(Array(row.prefix(2)) == ["1", "1"] && Array(row.suffix(2)) == ["0", "1"], "\(row)")
        #expect(server.requestCount(path: "/flaky/1/b.png") == 1)
    }

    @Test func helpStatesTheDefaultsOfRetriesAndPerHost() throws {
        let help = try CLI.run(["prefetch", "--help"]).stdout
        #expect(help.contains("--retries <retries>") && help.contains("(default: 4)"), "\(help)")
        #expect(help.contains("--per-host <per-host>") && help.contains("(default: 6)"), "\(help)")
        #expect(try CLI.run(["prefetch", "--from", "x", "--per-host", "0"]).status != 0)
        #expect(try CLI.run(["prefetch", "--from", "x", "--retries", "-1"]).status != 0)
    }

    @Test func aListOnStandardInputIsStreamed() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let png = try TestData.data("pngsuite/basn6a08.png")
        for i in 0..<30 { server.addFile("\(i).png", data: png) }
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = "# a list\n" + (0..<30).map { server.url("/files/\($0).png").absoluteString + "\n\n" }.joined()
        let output = try CLI.run(["prefetch", "--cache-dir", dir.path, "--from", "-"], stdin: input)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.lines.dropFirst().first.map { Array($0.prefix(2)) } == ["30", "0"])
    }

    /// nginx allows 2 requests at once per server address and answers 503 beyond; three addresses
    /// stand for three hosts. With `--per-host 2` no host is refused, and all three are served at
    /// once: their stretches of the access log overlap.
    @Test(.enabled(if: NginxServer.isAvailable, "needs nginx"))
    func perHostLimitKeepsEachHostUnderItsConnectionLimitAndServesHostsAtOnce() throws {
        let template = try TestData.data("jpeg/libjpeg-turbo/monkey12.jpg")
        let files = BulkOrigin.distinctJPEGs(from: template, count: 90)
        let limits = BulkOrigin.connectionLimited(2)
        let addresses = ["127.0.0.1", "127.0.0.2", "127.0.0.3"]
        let nginx = try NginxServer(
            tls: false, files: Dictionary(uniqueKeysWithValues: files.map { ($0.name, $0.data) }), locations: limits.locations,
            http: limits.http, addresses: addresses, logFormat: "$server_addr $msec $status")
        defer { nginx.stop() }
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Each host gets its own third of the files, listed host by host.
        let urls = files.enumerated().map { nginx.url("/\($0.element.name)", address: addresses[$0.offset * 3 / files.count]).absoluteString }
        let output = try CLI.run(["prefetch", "--cache-dir", dir.path, "--concurrency", "12", "--per-host", "2", "--retries", "0",
                                  "--options", "avoidDecode", "--from", try list(urls, in: dir).path])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.lines.dropFirst().first.map { Array($0.prefix(2)) } == ["90", "0"], "\(output.stdout)\(output.stderr)")
        let log = nginx.accessLog().map { $0.split(separator: " ").map(String.init) }.filter { $0.count == 3 }
        #expect(log.count == 90)
        #expect(!log.contains { $0[2] == "503" }, "no host was refused")
        var spans: [String: (first: Double, last: Double)] = [:]
        for line in log {
            guard let time = Double(line[1]) else { continue }
            let span = spans[line[0]] ?? (time, time)
            spans[line[0]] = (min(span.first, time), max(span.last, time))
        }
        #expect(spans.count == 3)
        let latestStart = spans.values.map(\.first).max() ?? 0, earliestEnd = spans.values.map(\.last).min() ?? 0
        #expect(latestStart <= earliestEnd, "the three hosts were served at the same time: \(spans)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs util-linux script"))
    func prefetchShowsRateAndTimeLeftOnATerminal() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let png = try TestData.data("pngsuite/basn6a08.png")
        for i in 0..<5 { server.addFile("\(i).png", data: png) }
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try list((0..<5).map { server.url("/files/\($0).png?delay=150").absoluteString }, in: dir)
        let (status, text) = try CLI.runOnTerminal("\(CLI.binary.path) prefetch --concurrency 1 --cache-dir \(dir.path) --from \(file.path)")
        #expect(status == 0, "\(text)")
        #expect(text.contains("/s") && text.contains("ETA "), "rate and time left are shown: \(text.debugDescription)")
        #expect(text.contains("retried\tfailed"))
    }
}
