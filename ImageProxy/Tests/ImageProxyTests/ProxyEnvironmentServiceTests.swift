import Foundation
import ImageKernelTestSupport
import Testing

/// A running service configured by its environment alone: our `IMAGE_PROXY_*` variables, and
/// imgproxy's `IMGPROXY_*` ones with `IMAGE_PROXY_COMPAT=imgproxy`; flags beat both.
@Suite("image-proxy configuration from the environment: the running service", .serialized)
struct ProxyEnvironmentServiceTests {
    static let key = "943b421c9eb07c83", salt = "520f986b998545b4"

    @Test func ourPrefixAloneConfiguresTheService() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess([], environment: [
            "IMAGE_PROXY_ALLOW_ORIGIN": origin.prefix, "IMAGE_PROXY_KEY": Self.key, "IMAGE_PROXY_SALT": Self.salt, "IMAGE_PROXY_MAX_AGE": "77",
        ])
        let signed = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:40:40", key: Self.key, salt: Self.salt)))
        #expect(signed.status == 200, "\(String(decoding: signed.body.prefix(300), as: UTF8.self))")
        #expect(signed.header("cache-control") == "public, max-age=77")
        let unsigned = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:40:40")))
        #expect(unsigned.status == 403, "the key from the environment is in force")
    }

    @Test func imgproxySettingsConfigureTheServiceInCompatMode() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess([], environment: [
            "IMAGE_PROXY_COMPAT": "imgproxy", "IMGPROXY_ALLOWED_SOURCES": origin.prefix, "IMGPROXY_KEY": Self.key, "IMGPROXY_SALT": Self.salt,
            "IMGPROXY_TTL": "120", "IMGPROXY_MAX_SRC_FILE_SIZE": "1000", "IMGPROXY_USE_ETAG": "false",
        ])
        let huge = try await HTTP.get(proxy.url(Paths.plain(origin.url("huge.bin"), spec: "resize:fit:40:40", key: Self.key, salt: Self.salt)))
        #expect(huge.status == 413, "IMGPROXY_MAX_SRC_FILE_SIZE=1000 is 1 MB: \(String(decoding: huge.body.prefix(300), as: UTF8.self))")
        let small = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:40:40", key: Self.key, salt: Self.salt)))
        #expect(small.status == 200 && small.header("cache-control") == "public, max-age=120")
        let unsigned = try await HTTP.get(proxy.url(Paths.plain(origin.url("alpha.png"), spec: "resize:fit:40:40")))
        #expect(unsigned.status == 403)
        #expect(proxy.log.contains("warning: IMGPROXY_USE_ETAG: not supported"), "settings it cannot honour are logged")
    }

    @Test func flagsBeatTheEnvironmentAndBadValuesStopTheStart() async throws {
        let origin = try Origin.start()
        let proxy = try ProxyProcess(["--max-age", "5"], environment: [
            "IMAGE_PROXY_ALLOW_ORIGIN": origin.prefix, "IMAGE_PROXY_MAX_AGE": "77", "IMAGE_PROXY_COMPAT": "imgproxy", "IMGPROXY_TTL": "99",
        ])
        let response = try await HTTP.get(proxy.url(Paths.plain(origin.url("photo.jpg"), spec: "resize:fit:40:40")))
        #expect(response.status == 200 && response.header("cache-control") == "public, max-age=5")
        let refused = #expect(throws: TestFailure.self) {
            try ProxyProcess([], environment: ["IMAGE_PROXY_ALLOW_ORIGIN": origin.prefix, "IMAGE_PROXY_MAX_AGE": "soon"])
        }
        #expect(refused?.description.contains("IMAGE_PROXY_MAX_AGE") == true, "\(String(describing: refused))")
    }
}
