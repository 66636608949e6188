import Foundation
import ImageKernelTestSupport
import ImageKernel
import LoaderHTTP
import Testing

@Suite struct RedirectTests {
    @Test func aRedirectChainIsFollowedToTheFinalURL() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let result = try await fixture.load("/redirect/3/files/png")
        #expect(result.data == fixture.png)
        #expect(result.url == fixture.server.url("/files/png"))
        #expect(result.headers["etag"] == "\"png-v1\"")
        #expect(fixture.server.requests.map(\.path) == [
            "/redirect/3/files/png", "/redirect/2/files/png", "/redirect/1/files/png", "/redirect/0/files/png", "/files/png",
        ])
    }

    @Test func moreRedirectsThanTheLimitFailPermanently() async throws {
        let fixture = try Fixture { $0.maxRedirects = 2 }
        defer { fixture.stop() }
        let error = try #require(await loadError { try await fixture.load("/redirect/5/files/png") })
        #expect(error.code == .redirect)
        #expect(error.isTransient == false)
        #expect(fixture.server.requestCount(path: "/files/png") == 0)
    }

    @Test func aRedirectLoopFails() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let error = try #require(await loadError { try await fixture.load("/loop/a") })
        #expect(error.code == .redirect)
        #expect(fixture.server.requests.count == 11)
    }

    @Test func noRedirectsAreFollowedWithALimitOfZero() async throws {
        let fixture = try Fixture { $0.maxRedirects = 0 }
        defer { fixture.stop() }
        let error = try #require(await loadError { try await fixture.load("/redirect/0/files/png") })
        #expect(error.httpStatus == 302)
    }
}
