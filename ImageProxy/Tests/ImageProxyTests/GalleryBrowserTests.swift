import Foundation
import ImageKernelTestSupport
import Testing

/// The gallery in a real browser: Debian's Chromium, headless, opens `/gallery` for a list of 24
/// origin images, and the row of the new steps (smart crop, focus point, pad, extend,
/// background, trim, dpr, watermark) on the first, and must see every one load (its script writes
/// the count into the title).
@Suite("image-proxy gallery in Chromium", .serialized)
struct GalleryBrowserTests {
    static let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/artifacts")

    @Test func chromiumLoadsAll24ImagesOfTheGallery() async throws {
        let chromium = try #require(Chromium.executable, "chromium is not installed (scripts/deps.sh installs it)")
        let origin = try Origin.start()
        let watermark = Origin.examples.appendingPathComponent("gradient-alpha.png").path
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix, "--watermark", watermark])
        let page = proxy.url("/gallery?list=" + origin.url("gallery.txt").absoluteString.addingPercentEncoding(withAllowedCharacters: Paths.unreserved)!)

        let html = try await HTTP.get(page)
        #expect(html.status == 200)
        #expect(html.header("content-type")?.hasPrefix("text/html") == true)
        let body = String(decoding: html.body, as: UTF8.self)
        let steps = ["smart", "fp:0.25:0.75", "pad:", "extend:", "background:", "trim/", "dpr:2/", "watermark:"]
        #expect(body.components(separatedBy: "<img ").count - 1 == 24 + steps.count)
        for step in steps { #expect(body.contains("<figcaption>") && body.contains(step), "the row shows \(step)") }

        let dom = try Chromium.run(chromium, ["--virtual-time-budget=60000", "--dump-dom", page.absoluteString])
        #expect(dom.contains("<title>loaded 32/32 failed 0</title>"), "\(dom.prefix(400))")
        // Every image the browser asked for went through the proxy, which negotiated AVIF for it.
        let lines = proxy.log.split(separator: "\n").filter { $0.contains("GET /unsafe/") }
        let served = lines.filter { $0.contains("GET /unsafe/resize:fill:200:200/plain/") }
        #expect(served.count >= 24, "\(served.count) image requests logged")
        #expect(lines.allSatisfy { $0.contains("] 200 ") }, "\(lines.filter { !$0.contains("] 200 ") })")
        for step in steps { #expect(lines.contains { $0.contains(step) }, "the browser asked for \(step)") }

        try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
        let screenshot = Self.artifacts.appendingPathComponent("gallery.png")
        try? FileManager.default.removeItem(at: screenshot)
        _ = try Chromium.run(chromium, [
            "--virtual-time-budget=60000", "--window-size=1400,1500", "--hide-scrollbars", "--screenshot=\(screenshot.path)", page.absoluteString,
        ])
        let png = try Data(contentsOf: screenshot)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG screenshot at \(screenshot.path)")
        print("gallery screenshot: \(screenshot.path) (\(png.count) bytes)")

        // A failing source is counted as failed, not as loaded.
        let broken = origin.directory.appendingPathComponent("www/broken.txt")
        try Data("\(origin.url("photo.jpg"))\n\(origin.url("missing.jpg"))\n\(origin.url("notes.txt"))\n".utf8).write(to: broken)
        let brokenPage = proxy.url("/gallery?list=" + origin.url("broken.txt").absoluteString.addingPercentEncoding(withAllowedCharacters: Paths.unreserved)!)
        let brokenDom = try Chromium.run(chromium, ["--virtual-time-budget=30000", "--dump-dom", brokenPage.absoluteString])
        // (and the row of steps on the first, photo.jpg, loads)
        #expect(brokenDom.contains("<title>loaded \(1 + steps.count)/\(3 + steps.count) failed 2</title>"), "\(brokenDom.prefix(400))")
    }

    @Test func galleryRefusesListsFromDisallowedOrigins() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let outside = try await HTTP.get(proxy.url("/gallery?list=" + origin.url("gallery.txt", address: "127.0.0.2").absoluteString))
        #expect(outside.status == 403)
        let none = try await HTTP.get(proxy.url("/gallery"))
        #expect(none.status == 400)
    }
}

enum Chromium {
    static let executable: URL? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].map(URL.init(fileURLWithPath:))
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    /// Runs headless Chromium (killed after two minutes) and returns its standard output.
    static func run(_ executable: URL, _ arguments: [String]) throws -> String {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        let process = Process()
        process.executableURL = executable
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions",
            "--user-data-dir=\(profile.path)",
        ] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = DispatchTime.now() + .seconds(120)
        DispatchQueue.global().asyncAfter(deadline: deadline) { if process.isRunning { process.terminate() } }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
