import Foundation
import ImageKernelTestSupport
import Testing

/// Originals reach the disk on their `--original-min-uses`-th use (default 2, as nginx's
/// `proxy_cache_min_uses`): a source rendered once leaves only its result on disk; a second
/// render of it (from memory) keeps it, and after a restart a third comes from disk.
@Suite("image-proxy originals kept on their second use")
struct ProxyOriginalAdmissionTests {
    /// The originals kept in `directory` (files beside the cache's ledger).
    static func originals(in directory: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("originals").path)) ?? []
        return names.filter { !$0.hasPrefix(".") }
    }

    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("proxy-admission-\(UUID().uuidString)")
    }

    @Test func aSourceRenderedOnceLeavesNoOriginalAndItsSecondRenderKeepsIt() async throws {
        let origin = try Origin.start()
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = origin.url("photo.jpg")
        do {
            let proxy = try ProxyProcess(["--allow-origin", origin.prefix, "--cache-dir", directory.path])
            #expect(try await HTTP.get(proxy.url(Paths.plain(source, spec: "resize:fit:64:64"))).status == 200)
            #expect(Self.originals(in: directory).isEmpty, "a source used once is not kept: \(Self.originals(in: directory))")
            #expect(try await HTTP.get(proxy.url(Paths.plain(source, spec: "resize:fit:32:32"))).status == 200)
            #expect(proxy.log.contains(" source-memory GET "), "\(proxy.log)")
            #expect(Self.originals(in: directory).count == 1, "kept on its second use")
            #expect(try await HTTP.get(proxy.url(Paths.plain(source, spec: "resize:fit:16:16"))).status == 200)
            #expect(Self.originals(in: directory).count == 1)
            proxy.stop()
        }
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix, "--cache-dir", directory.path])
        #expect(try await HTTP.get(proxy.url(Paths.plain(source, spec: "resize:fit:48:48"))).status == 200)
        #expect(proxy.log.contains(" source-disk GET "), "\(proxy.log)")
        #expect(Origin.requests(origin, path: "/photo.jpg") == 1)
    }

    @Test func minUsesOneKeepsEveryOriginalAtOnce() async throws {
        let origin = try Origin.start()
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // From the environment, as every flag (`--original-min-uses 1`).
        let proxy = try ProxyProcess(["--allow-origin", origin.prefix, "--cache-dir", directory.path], environment: ["IMAGE_PROXY_ORIGINAL_MIN_USES": "1"])
        for name in ["photo.jpg", "alpha.png"] {
            #expect(try await HTTP.get(proxy.url(Paths.plain(origin.url(name), spec: "resize:fit:64:64"))).status == 200)
        }
        #expect(Self.originals(in: directory).count == 2)
    }

    @Test func minUsesBelowOneIsRefused() throws {
        #expect(throws: (any Error).self) { try ProxyProcess(["--allow-origin", "http://127.0.0.1:1/", "--original-min-uses", "0"]) }
    }
}
