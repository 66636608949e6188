import Foundation
import ImageKernelTestSupport
import ImageKernel
import LoaderHTTP
import Testing

@Suite struct ErrorTests {
    @Test func notFoundIsAPermanentErrorCarryingTheStatus() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let error = try #require(await loadError { try await fixture.load("/files/missing") })
        #expect(error.code == .httpStatus)
        #expect(error.httpStatus == 404)
        #expect(error.isTransient == false)
        #expect(error.stage == .load)
        #expect(error.plugin == "LoaderHTTP")
    }

    @Test(arguments: [408, 429, 500, 503])
    func throttlingAndServerErrorsAreTransient(status: Int) async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let error = try #require(await loadError { try await fixture.load("/status/\(status)") })
        #expect(error.code == .httpStatus)
        #expect(error.httpStatus == status)
        #expect(error.isTransient)
    }

    @Test func aFailedStatusCarriesTheResponseHeaders() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let error = try #require(await loadError { try await fixture.load("/status/429?Retry-After=7") })
        #expect(error.code == .httpStatus)
        #expect(error.httpStatus == 429)
        #expect(error.responseHeaders?["retry-after"] == "7")
        #expect(error.responseHeaders?["content-type"] == "text/plain")
        let unauthorized = try #require(await loadError { try await fixture.load("/auth/png") })
        #expect(unauthorized.httpStatus == 401)
        #expect(unauthorized.responseHeaders?["www-authenticate"] == "Basic realm=\"test\"")
    }

    @Test func aFailureWithoutAResponseCarriesNoHeaders() async throws {
        let fixture = try Fixture { $0.timeout = .milliseconds(300) }
        defer { fixture.stop() }
        let error = try #require(await loadError { try await fixture.load("/stall") })
        #expect(error.code == .timeout)
        #expect(error.responseHeaders == nil)
    }

    @Test func acceptableStatusCodesAreConfigurable() async throws {
        let fixture = try Fixture { $0.acceptableStatusCodes = [200] }
        defer { fixture.stop() }
        #expect(await loadError { try await fixture.load("/status/204") }?.httpStatus == 204)
        #expect(try await fixture.load("/files/png").statusCode == 200)
    }

    @Test func aStalledServerTimesOutWithATransientError() async throws {
        let fixture = try Fixture { $0.timeout = .milliseconds(500) }
        defer { fixture.stop() }
        let error = try #require(await loadError { try await fixture.load("/stall") })
        #expect(error.code == .timeout)
        #expect(error.isTransient)
        #expect(await eventually { fixture.server.clientCloseCount(path: "/stall") == 1 })
    }

    @Test func aBodyThatStallsHalfwayTimesOut() async throws {
        let fixture = try Fixture { $0.timeout = .milliseconds(500) }
        defer { fixture.stop() }
        let error = try #require(await loadError { try await fixture.load("/stall-body/20000") })
        #expect(error.code == .timeout)
        #expect(error.isTransient)
    }

    @Test func aSlowButSteadyBodyDoesNotTimeOut() async throws {
        let fixture = try Fixture { $0.timeout = .milliseconds(500) }
        defer { fixture.stop() }
        // ~12 pieces 100 ms apart: longer than the timeout in total, never idle that long.
        let result = try await fixture.load("/files/jpeg?chunk=500&pace=100")
        #expect(result.data == fixture.jpeg)
    }

    @Test func aConnectionDroppedMidBodyIsATransientConnectionLoss() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let error = try #require(await loadError { try await fixture.load("/drop/jpeg") })
        #expect(error.code == .connectionLost)
        #expect(error.isTransient)
    }

    @Test func aBodyAnnouncedOverTheLimitIsRefusedBeforeItIsRead() async throws {
        let fixture = try Fixture { $0.maxBodySize = 100_000 }
        defer { fixture.stop() }
        let progress = Collector<LoadProgress>()
        let error = try #require(await loadError { try await fixture.load("/big/5000000") { progress.append($0) } })
        #expect(error.code == .tooLarge)
        #expect(error.isTransient == false)
        #expect(progress.values.isEmpty)
    }

    @Test func anEndlessBodyIsAbortedAtTheLimitAndItsConnectionClosed() async throws {
        let fixture = try Fixture { $0.maxBodySize = 1 << 20 }
        defer { fixture.stop() }
        let progress = Collector<LoadProgress>()
        let error = try #require(await loadError { try await fixture.load("/endless") { progress.append($0) } })
        #expect(error.code == .tooLarge)
        #expect(progress.values.allSatisfy { $0.expected == -1 && $0.received <= 1 << 20 })
        #expect(await eventually { fixture.server.clientCloseCount(path: "/endless") == 1 })
    }

    @Test func aBodyExactlyAtTheLimitLoads() async throws {
        let fixture = try Fixture { $0.maxBodySize = 300_000 }
        defer { fixture.stop() }
        #expect(try await fixture.load("/big/300000").data.count == 300_000)
        #expect(try await fixture.load("/big/300000?chunked=1").data.count == 300_000)
        #expect(await loadError { try await fixture.load("/big/300001?chunked=1") }?.code == .tooLarge)
    }

    @Test func aClosedPortIsATransientConnectFailure() async throws {
        let refusing = try RefusingPort()
        let url = refusing.url("/files/png")
        let loader = try HTTPLoader()
        defer { loader.shutdown() }
        let error = try #require(await loadError {
            try await loader.load(ImageRequest(url: url), options: [], context: ImageContext(), progress: { _ in })
        })
        #expect(error.code == .cannotConnect)
        #expect(error.isTransient)
        withExtendedLifetime(refusing) {}
    }

    @Test func anUnresolvableHostIsATransientDNSFailure() async throws {
        let loader = try HTTPLoader()
        defer { loader.shutdown() }
        let request = ImageRequest(url: URL(string: "http://no-such-host.invalid/a.png")!)
        let error = try #require(await loadError {
            try await loader.load(request, options: [], context: ImageContext(), progress: { _ in })
        })
        #expect(error.code == .dnsFailure)
        #expect(error.isTransient)
    }

    @Test func urlsAndHeadersThatCannotBeSentAreRefusedUpFront() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let ftp = ImageRequest(url: URL(string: "ftp://127.0.0.1/a.png")!)
        #expect(await loadError {
            try await fixture.loader.load(ftp, options: [], context: ImageContext(), progress: { _ in })
        }?.code == .invalidURL)
        #expect(await loadError { try await fixture.load("/files/png", headers: ["X-Evil": "a\r\nX-Injected: b"]) }?.code == .invalidArgument)
        #expect(await loadError { try await fixture.load("/files/png", headers: ["Bad Name": "a"]) }?.code == .invalidArgument)
        #expect(fixture.server.requests.isEmpty)
    }

    @Test func aConfiguredHeaderThatCannotBeSentIsRefusedAtCreation() throws {
        var configuration = HTTPLoader.Configuration()
        configuration.headers["X-Evil"] = "a\r\nX-Injected: b"
        let error = #expect(throws: ImageKernelError.self) { _ = try HTTPLoader(configuration: configuration) }
        #expect(error?.code == .invalidArgument)
    }

    @Test func aReplyThatIsNotHTTPIsAPermanentError() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let error = try #require(await loadError { try await fixture.load("/garbage") })
        #expect(error.code == .ioError)
        #expect(error.isTransient == false)
    }
}
