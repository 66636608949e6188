import Foundation
import ImageKernelTestSupport
import ImageKernel
import LoaderHTTP
import Testing

/// Against nginx with a self-signed certificate made by `openssl req` at test time.
@Suite(.enabled(if: NginxServer.isAvailable, "nginx and openssl are needed for the TLS tests (apt-get install nginx openssl)"))
struct TLSTests {
    private func withNginx(
        http2: Bool = false, locations: String = "", _ body: (NginxServer, Data) async throws -> Void
    ) async throws {
        let png = try TestData.data("pngsuite/basn6a08.png")
        var files: [String: Data] = ["a.png": png]
        for index in 0..<20 { files["f\(index).png"] = png }
        let nginx = try NginxServer(tls: true, http2: http2, files: files, locations: locations)
        defer { nginx.stop() }
        try await body(nginx, png)
    }

    private func load(_ loader: HTTPLoader, _ url: URL, options: LoaderOptions = []) async throws -> LoadResult {
        try await loader.load(ImageRequest(url: url), options: options, context: ImageContext(), progress: { _ in })
    }

    @Test func aSelfSignedCertificateIsRefusedByDefault() async throws {
        try await withNginx { nginx, _ in
            let loader = try HTTPLoader()
            defer { loader.shutdown() }
            let error = try #require(await loadError { try await load(loader, nginx.url("/a.png")) })
            #expect(error.code == .tls)
            #expect(error.isTransient == false)
        }
    }

    @Test func allowInvalidSSLCertificatesAcceptsIt() async throws {
        try await withNginx { nginx, png in
            let loader = try HTTPLoader()
            defer { loader.shutdown() }
            let result = try await load(loader, nginx.url("/a.png"), options: .allowInvalidSSLCertificates)
            #expect(result.data == png)
        }
    }

    @Test func concurrentLoadsShareOneHTTP2Connection() async throws {
        try await withNginx(http2: true) { nginx, png in
            let loader = try HTTPLoader()
            defer { loader.shutdown() }
            try await withThrowingTaskGroup(of: Data.self) { group in
                for index in 0..<20 {
                    group.addTask { try await load(loader, nginx.url("/f\(index).png"), options: .allowInvalidSSLCertificates).data }
                }
                for try await data in group { #expect(data == png) }
            }
            let lines = nginx.accessLog().map { $0.split(separator: " ") }
            #expect(lines.count == 20)
            #expect(lines.allSatisfy { $0[1] == "HTTP/2.0" && $0[3] == "200" })
            #expect(Set(lines.map { $0[2] }).count == 1, "all streams on one connection: \(nginx.accessLog())")
        }
    }

    @Test func anHTTPSToHTTPRedirectIsRefusedUnlessAllowed() async throws {
        let plain = try HTTPTestServer()
        defer { plain.stop() }
        let png = try TestData.data("pngsuite/basn6a08.png")
        plain.addFile("png", data: png)
        let location = "location = /down { return 302 \(plain.url("/files/png").absoluteString); }"
        try await withNginx(locations: location) { nginx, _ in
            let strict = try HTTPLoader()
            defer { strict.shutdown() }
            let error = try #require(await loadError {
                try await load(strict, nginx.url("/down"), options: .allowInvalidSSLCertificates)
            })
            #expect(error.code == .redirect)
            #expect(plain.requests.isEmpty)

            var configuration = HTTPLoader.Configuration()
            configuration.allowInsecureRedirects = true
            let lenient = try HTTPLoader(configuration: configuration)
            defer { lenient.shutdown() }
            let result = try await load(lenient, nginx.url("/down"), options: .allowInvalidSSLCertificates)
            #expect(result.data == png)
            #expect(result.url == plain.url("/files/png"))
        }
    }
}
