import CoderJPEG
import Foundation
import ImageKernel
import ImageProxyCore
import Testing

/// `local:///path` sources: files under `--local-root`, never outside it, through the running
/// service and through ``LocalSourcePolicy`` alone.
@Suite("image-proxy local sources", .serialized)
struct ProxyLocalSourceTests {
    /// A root with a photo, a subdirectory, a symlink to a file inside, and symlinks (to a file and
    /// to a directory) that lead out of it to a secret beside the root; and a file over 1 MB.
    struct Tree {
        let base: URL
        var root: URL { base.appendingPathComponent("root") }
        var outside: URL { base.appendingPathComponent("outside") }

        init() throws {
            base = FileManager.default.temporaryDirectory.appendingPathComponent("proxy-local-\(UUID().uuidString)")
            let files = FileManager.default
            try files.createDirectory(at: base.appendingPathComponent("root/sub"), withIntermediateDirectories: true)
            try files.createDirectory(at: base.appendingPathComponent("outside"), withIntermediateDirectories: true)
            let photo = try Origin.example("photo.jpg")
            try photo.write(to: root.appendingPathComponent("photo.jpg"))
            try photo.write(to: root.appendingPathComponent("sub/photo copy.jpg"))
            try photo.write(to: outside.appendingPathComponent("secret.jpg"))
            try Data(count: 3 << 20).write(to: root.appendingPathComponent("huge.jpg"))
            try files.createSymbolicLink(atPath: root.appendingPathComponent("inside-link.jpg").path, withDestinationPath: "sub/photo copy.jpg")
            try files.createSymbolicLink(atPath: root.appendingPathComponent("escape.jpg").path, withDestinationPath: outside.appendingPathComponent("secret.jpg").path)
            try files.createSymbolicLink(atPath: root.appendingPathComponent("escape-relative.jpg").path, withDestinationPath: "../outside/secret.jpg")
            try files.createSymbolicLink(atPath: root.appendingPathComponent("outdir").path, withDestinationPath: outside.path)
        }

        func remove() { try? FileManager.default.removeItem(at: base) }
    }

    static func path(_ local: String, spec: String = "resize:fit:40:40") -> String {
        "/unsafe/\(spec)/plain/" + local.addingPercentEncoding(withAllowedCharacters: Paths.unreserved)!
    }

    @Test func filesUnderTheRootAreServedAndNothingOutsideIt() async throws {
        let tree = try Tree()
        defer { tree.remove() }
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix, "--local-root", tree.root.path, "--max-source-mb", "1"])
        for served in ["local:///photo.jpg", "local:///sub/photo%20copy.jpg", "local:///inside-link.jpg"] {
            let response = try await HTTP.get(proxy.url(Self.path(served)))
            #expect(response.status == 200, "\(served): \(String(decoding: response.body.prefix(300), as: UTF8.self))")
            #expect(response.header("content-type") == "image/jpeg")
            let image = try JPEGCoder().decode(response.body, options: DecodeOptions())
            #expect(max(image.width, image.height) == 40)
        }
        #expect(proxy.log.contains(" local GET /unsafe/resize:fit:40:40/plain/local"), "the log says the source was local")
        // Same bytes as the photo through the origin.
        let local = try await HTTP.get(proxy.url(Self.path("local:///photo.jpg", spec: "resize:fit:41:41")))
        let remote = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:41:41")))
        #expect(local.body == remote.body)

        let refused: [(String, Int, String)] = [
            ("local:///../outside/secret.jpg", 403, "origin_not_allowed"),
            ("local:///sub/../../outside/secret.jpg", 403, "origin_not_allowed"),
            ("local:///sub/%2e%2e/photo.jpg", 403, "origin_not_allowed"),
            ("local:///sub%2f..%2fphoto.jpg", 403, "origin_not_allowed"),
            ("local:///escape.jpg", 403, "origin_not_allowed"),
            ("local:///escape-relative.jpg", 403, "origin_not_allowed"),
            ("local:///outdir/secret.jpg", 403, "origin_not_allowed"),
            // An absolute path outside the root is taken under the root (as imgproxy's local://): no such file.
            ("local://" + tree.outside.appendingPathComponent("secret.jpg").path, 404, "not_found"),
            ("local:///etc/passwd", 404, "not_found"),
            ("local:///missing.jpg", 404, "not_found"),
            ("local:///sub", 404, "not_found"),
            ("local:///huge.jpg", 413, "too_large"),
            ("local://host/photo.jpg", 400, "invalid_path"),
        ]
        for (source, status, code) in refused {
            let response = try await HTTP.get(proxy.url(Self.path(source)))
            #expect(response.status == status, "\(source): \(String(decoding: response.body.prefix(300), as: UTF8.self))")
            #expect(response.json["error"] == code, "\(source): \(response.json)")
        }
    }

    @Test func withoutALocalRootLocalSourcesAreRefused() async throws {
        let tree = try Tree()
        defer { tree.remove() }
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix])
        let response = try await HTTP.get(proxy.url(Self.path("local://" + tree.root.appendingPathComponent("photo.jpg").path)))
        #expect(response.status == 403 && response.json["error"] == "origin_not_allowed", "\(response.json)")
        #expect((response.json["message"] ?? "").contains("--local-root"))
    }

    @Test func thePolicyResolvesRealPathsUnderTheRoot() throws {
        let tree = try Tree()
        defer { tree.remove() }
        // The root itself given through a symlink and with a trailing slash: its real path is what counts.
        let linkedRoot = tree.base.appendingPathComponent("root-link")
        try FileManager.default.createSymbolicLink(atPath: linkedRoot.path, withDestinationPath: tree.root.path)
        let policy = try LocalSourcePolicy(root: linkedRoot.path + "/")
        let real = try #require(policy.root)
        #expect(try policy.resolve(URL(string: "local:///inside-link.jpg")!) == real + "/sub/photo copy.jpg")
        #expect(throws: ProxyError.self) { try policy.resolve(URL(string: "local:///escape.jpg")!) }
        #expect(throws: ProxyError.self) { try policy.resolve(URL(string: "local:///outdir/secret.jpg")!) }
        // The root itself is not a file under it.
        #expect(throws: ProxyError.self) { try policy.resolve(URL(string: "local:///")!) }
        #expect(throws: ProxyError.self) { try LocalSourcePolicy(root: tree.root.appendingPathComponent("photo.jpg").path) }
        #expect(throws: ProxyError.self) { try LocalSourcePolicy(root: tree.base.appendingPathComponent("none").path) }
        #expect(throws: ProxyError.self) { try LocalSourcePolicy(root: nil).resolve(URL(string: "local:///photo.jpg")!) }
    }
}
