import Foundation
import ImageKernelTestSupport
import ImageKernel
import LoaderHTTP
import Testing

@Suite struct AuthCookieTests {
    @Test func withoutCredentialsTheChallengeIsAPermanent401() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let error = try #require(await loadError { try await fixture.load("/auth/png") })
        #expect(error.httpStatus == 401)
        #expect(error.isTransient == false)
    }

    @Test func basicCredentialsAreSent() async throws {
        let fixture = try Fixture {
            $0.credentials = HTTPLoader.Credentials(user: HTTPTestServer.user, password: HTTPTestServer.password)
        }
        defer { fixture.stop() }
        #expect(try await fixture.load("/auth/png").data == fixture.png)
    }

    @Test func wrongCredentialsAreRefused() async throws {
        let fixture = try Fixture { $0.credentials = HTTPLoader.Credentials(user: HTTPTestServer.user, password: "wrong") }
        defer { fixture.stop() }
        #expect(await loadError { try await fixture.load("/auth/png") }?.httpStatus == 401)
    }

    @Test func cookiesAreStoredAndSentWhenAsked() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        _ = try await fixture.load("/cookie/set/session?value=abc", options: .handleCookies)
        let result = try await fixture.load("/cookie/check/session/png", options: .handleCookies)
        #expect(result.data == fixture.png)
        #expect(fixture.server.requests.last?.headers["cookie"] == "session=abc")
    }

    @Test func cookiesAreNeitherStoredNorSentOtherwise() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        _ = try await fixture.load("/cookie/set/session?value=abc", options: .handleCookies)
        #expect(await loadError { try await fixture.load("/cookie/check/session/png") }?.httpStatus == 403)
        _ = try await fixture.load("/cookie/set/other?value=1")
        #expect(await loadError {
            try await fixture.load("/cookie/check/other/png", options: .handleCookies)
        }?.httpStatus == 403)
    }
}
