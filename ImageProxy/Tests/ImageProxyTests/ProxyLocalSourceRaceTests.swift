import CoderPNG
import Foundation
import Glibc
import ImageKernel
import ImageProxyCore
import Synchronization
import Testing

/// `local:///` sources opened in one step under the root (``LocalFileOpener``): a symlink swapped
/// while requests are served never makes the service read a file outside the root.
@Suite("image-proxy local sources: no check-then-open race", .serialized)
struct ProxyLocalSourceRaceTests {
    /// `root/inside.png` (4×4 red), `outside/secret.png` (6×2 green) beside the root, and
    /// `root/flip.png`, which ``flip(_:)`` makes a copy of the inside file (a hard link) and a
    /// symlink to the secret in turn: a path that is a plain file inside the root when it is
    /// checked may be a symlink out of it when it is opened.
    struct Tree {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("proxy-race-\(UUID().uuidString)")
        var root: URL { base.appendingPathComponent("root") }
        var secret: URL { base.appendingPathComponent("outside/secret.png") }

        init() throws {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: secret.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Self.png(width: 4, height: 4, rgb: [255, 0, 0]).write(to: root.appendingPathComponent("inside.png"))
            try Self.png(width: 6, height: 2, rgb: [0, 255, 0]).write(to: secret)
            try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("flip.png").path, withDestinationPath: secret.path)
        }

        static func png(width: Int, height: Int, rgb: [UInt8]) throws -> Data {
            let pixels = (0..<width * height).flatMap { _ in rgb }
            return try PNGCoder().encode(try Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels), as: .png, options: EncodeOptions())
        }

        /// Replaces `flip.png` by a hard link of the inside file and by a symlink to the secret in
        /// turn, each swap one atomic rename (the path always exists), counting swaps in `flipper`,
        /// until it is stopped.
        func flip(_ flipper: Flipper) {
            let flip = root.appendingPathComponent("flip.png").path
            let inside = root.appendingPathComponent("inside.png").path
            let staged = root.appendingPathComponent(".flip.tmp").path
            var count = 0
            while !flipper.stop.load(ordering: .relaxed) {
                unlink(staged)
                let made = count % 2 == 0 ? link(inside, staged) : symlink(secret.path, staged)
                guard made == 0, rename(staged, flip) == 0 else { continue }
                count += 1
                flipper.swaps.store(count, ordering: .relaxed)
            }
        }

        func remove() { try? FileManager.default.removeItem(at: base) }
    }

    final class Flipper: Sendable {
        let stop = Atomic<Bool>(false)
        let swaps = Atomic<Int>(0)
    }

    @Test func aSymlinkSwappedDuringRequestsNeverServesAByteFromOutsideTheRoot() async throws {
        let tree = try Tree()
        defer { tree.remove() }
        let proxy = try ProxyProcess(["--allow-origin", "http://127.0.0.1:9/", "--local-root", tree.root.path])
        let flipper = Flipper()
        let thread = Thread { tree.flip(flipper) }
        thread.start()
        defer {
            flipper.stop.store(true, ordering: .relaxed)
            while !thread.isFinished { usleep(1000) }
        }
        // The flipper runs before the first request (a loaded machine may start it late).
        for _ in 0..<1000 where flipper.swaps.load(ordering: .relaxed) < 10 { try await Task.sleep(for: .milliseconds(10)) }
        var inside = 0
        var refused = 0
        var requests = 0
        // Until both targets were met often (at most 2000 requests), each a spec of its own: no
        // result cache answers for the file.
        while requests < 2000 && (inside < 20 || refused < 20) {
            let path = ProxyLocalSourceTests.path("local:///flip.png", spec: "resize:fit:\(100 + requests):\(100 + requests)")
            let response = try await HTTP.get(proxy.url(path))
            if response.status == 200 {
                let image = try PNGCoder().decode(response.body, options: DecodeOptions())
                #expect(image.width == 4 && image.height == 4, "request \(requests) served \(image.width)x\(image.height): the secret outside the root")
                inside += 1
            } else {
                #expect(response.status == 403 && response.json["error"] == "origin_not_allowed", "request \(requests): \(response.status) \(response.json)")
                refused += 1
            }
            requests += 1
        }
        #expect(inside >= 20 && refused >= 20, "both targets were met: \(inside) served, \(refused) refused, \(flipper.swaps.load(ordering: .relaxed)) swaps")
    }

    @Test func theNoFollowWalkServesPlainFilesAndRefusesEverySymlink() throws {
        let tree = try ProxyLocalSourceTests.Tree()
        defer { tree.remove() }
        let policy = try LocalSourcePolicy(root: tree.root.path, opener: LocalFileOpener(method: .noFollowWalk))
        let photo = try policy.read(URL(string: "local:///photo.jpg")!, limit: 1 << 20)
        #expect(photo == (try Data(contentsOf: tree.root.appendingPathComponent("photo.jpg"))))
        #expect(try policy.read(URL(string: "local:///sub/photo%20copy.jpg")!, limit: 1 << 20) == photo)
        for refused in ["inside-link.jpg", "escape.jpg", "escape-relative.jpg", "outdir/secret.jpg"] {
            let error = #expect(throws: ProxyError.self) { try policy.read(URL(string: "local:///\(refused)")!, limit: 1 << 20) }
            #expect(error?.code == "origin_not_allowed", "\(refused): \(String(describing: error))")
        }
        let missing = #expect(throws: ProxyError.self) { try policy.read(URL(string: "local:///sub/missing.jpg")!, limit: 1 << 20) }
        #expect(missing?.status == 404)
        let directory = #expect(throws: ProxyError.self) { try policy.read(URL(string: "local:///sub")!, limit: 1 << 20) }
        #expect(directory?.status == 404)
        let long = #expect(throws: ProxyError.self) {
            try policy.read(URL(string: "local:///" + String(repeating: "a", count: 5000))!, limit: 1 << 20)
        }
        #expect(long?.status == 404, "a name too long is no file, never a 500")
        let huge = #expect(throws: ProxyError.self) { try policy.read(URL(string: "local:///huge.jpg")!, limit: 1 << 20) }
        #expect(huge?.status == 413)
    }

    @Test func aFIFOUnderTheRootIsRefusedWithoutHanging() throws {
        let tree = try ProxyLocalSourceTests.Tree()
        defer { tree.remove() }
        #expect(mkfifo(tree.root.appendingPathComponent("pipe.jpg").path, 0o644) == 0)
        for method in [LocalFileOpener.Method.beneath, .noFollowWalk] {
            let policy = try LocalSourcePolicy(root: tree.root.path, opener: LocalFileOpener(method: method))
            let error = #expect(throws: ProxyError.self) { try policy.read(URL(string: "local:///pipe.jpg")!, limit: 1 << 20) }
            #expect(error?.status == 404, "\(method)")
        }
    }
}
