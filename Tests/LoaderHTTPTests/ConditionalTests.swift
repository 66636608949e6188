import Foundation
import ImageKernelTestSupport
import ImageKernel
import LoaderHTTP
import Testing

/// `refreshCached`: the manager passes the cached entry's validators; a 304 keeps the cached image.
@Suite struct ConditionalTests {
    @Test func aMatchingETagIsAnsweredNotModifiedWithoutABody() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let first = try await fixture.load("/files/png")
        let validators = try #require(first.validators)
        let progress = Collector<LoadProgress>()
        let second = try await fixture.load(
            "/files/png", options: [.useCachedResponse, .ignoreCachedResponse], validators: validators
        ) { progress.append($0) }
        #expect(second.notModified)
        #expect(second.data.isEmpty)
        #expect(second.statusCode == 304)
        #expect(progress.values.isEmpty)
        let sent = try #require(fixture.server.requests.last?.headers)
        #expect(sent["if-none-match"] == "\"png-v1\"")
        #expect(sent["if-modified-since"] == "Wed, 01 Jan 2025 00:00:00 GMT")
    }

    @Test func aMatchingLastModifiedAloneIsEnough() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let result = try await fixture.load("/files/png", validators: CacheValidators(lastModified: "Wed, 01 Jan 2025 00:00:00 GMT"))
        #expect(result.notModified)
    }

    @Test func aChangedResourceSendsTheNewBody() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let result = try await fixture.load("/files/png", validators: CacheValidators(etag: "\"png-v0\""))
        #expect(result.notModified == false)
        #expect(result.data == fixture.png)
        #expect(result.validators?.etag == "\"png-v1\"")
    }

    @Test func a304ToAnUnconditionalRequestIsAnError() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        #expect(await loadError { try await fixture.load("/status/304") }?.httpStatus == 304)
    }
}
