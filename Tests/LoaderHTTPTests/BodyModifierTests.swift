import Foundation
import ImageKernelTestSupport
import ImageKernel
import LoaderHTTP
import Testing

/// The response body modifier (SDWebImage's decryptor): applied once per transfer, shared by
/// coalesced loads; nil fails the load with `bodyRejected`.
@Suite struct BodyModifierTests {
    static let key: UInt8 = 0x5A

    static func xor(_ data: Data) -> Data { Data(data.map { $0 ^ key }) }

    /// A fixture serving the PNG "encrypted" under `/files/xor`, with a decrypting body modifier
    /// that counts its calls.
    static func fixture(calls: Collector<HTTPResponse>, refuse: Bool = false) throws -> Fixture {
        let fixture = try Fixture { configuration in
            configuration.responseBodyModifier = HTTPResponseBodyModifierBlock { body, response in
                calls.append(response)
                return refuse ? nil : xor(body)
            }
        }
        fixture.server.addFile("xor", data: xor(fixture.png))
        return fixture
    }

    @Test func theModifiedBodyIsWhatTheLoadReturns() async throws {
        let calls = Collector<HTTPResponse>()
        let fixture = try Self.fixture(calls: calls)
        defer { fixture.stop() }
        let result = try await fixture.load("/files/xor")
        #expect(result.data == fixture.png)
        #expect(ImageFormat.sniff(result.data) == .png)
        #expect(calls.values.count == 1)
        #expect(calls.values.first?.statusCode == 200)
        #expect(calls.values.first?.url == fixture.server.url("/files/xor"))
    }

    @Test func coalescedLoadsShareOneModification() async throws {
        let calls = Collector<HTTPResponse>()
        let fixture = try Self.fixture(calls: calls)
        defer { fixture.stop() }
        let tasks = (0..<4).map { _ in fixture.start("/gate/g/xor") }
        #expect(await fixture.waitForStatus { $0.tokens == 4 && $0.runningTransfers == 1 })
        fixture.server.openGate("g")
        for task in tasks { #expect(try await task.value.data == fixture.png) }
        #expect(calls.values.count == 1)
        #expect(fixture.server.requestCount(path: "/gate/g/xor") == 1)
    }

    @Test func refusingTheBodyFailsEveryCallerWithBodyRejected() async throws {
        let calls = Collector<HTTPResponse>()
        let fixture = try Self.fixture(calls: calls, refuse: true)
        defer { fixture.stop() }
        let error = try #require(await loadError { try await fixture.load("/files/xor") })
        #expect(error.code == .bodyRejected)
        #expect(error.plugin == "LoaderHTTP")
        #expect(!error.isTransient)
        #expect(error.responseHeaders?["content-length"] == "\(fixture.png.count)")
    }

    @Test func failedAndNotModifiedResponsesAreNotModified() async throws {
        let calls = Collector<HTTPResponse>()
        let fixture = try Self.fixture(calls: calls)
        defer { fixture.stop() }
        #expect(await loadError { try await fixture.load("/status/404") }?.httpStatus == 404)
        let notModified = try await fixture.load("/files/png", validators: CacheValidators(etag: "\"png-v1\""))
        #expect(notModified.notModified)
        #expect(calls.values.isEmpty)
    }

    @Test func progressCarriesNoRawChunksWhenABodyModifierIsSet() async throws {
        let calls = Collector<HTTPResponse>()
        let fixture = try Self.fixture(calls: calls)
        defer { fixture.stop() }
        let progress = Collector<LoadProgress>()
        let result = try await fixture.load("/files/xor", options: .progressiveLoad) { progress.append($0) }
        #expect(result.data == fixture.png)
        #expect(!progress.values.isEmpty)
        #expect(progress.values.allSatisfy { $0.chunk == nil })
    }
}
