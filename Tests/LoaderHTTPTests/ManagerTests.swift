import Foundation
import ImageKernelTestSupport
import ImageKernel
import LoaderHTTP
import Testing

/// HTTPLoader's error classification as the manager sees it: transient failures are retried,
/// permanent ones blacklisted.
@Suite struct ManagerTests {
    @Test func aTimeoutIsNotBlacklistedButA404Is() async throws {
        let fixture = try Fixture { $0.timeout = .milliseconds(300) }
        defer { fixture.stop() }
        let manager = ImageManager(loaders: [fixture.loader], coders: [])
        let stalled = fixture.server.url("/stall")
        for _ in 0..<2 {
            await #expect(throws: ImageKernelError.self) { _ = try await manager.image(for: stalled, options: .avoidDecode) }
        }
        #expect(manager.isFailed(stalled) == false)
        #expect(fixture.server.requestCount(path: "/stall") == 2)

        let missing = fixture.server.url("/files/missing")
        for _ in 0..<2 {
            await #expect(throws: ImageKernelError.self) { _ = try await manager.image(for: missing, options: .avoidDecode) }
        }
        #expect(manager.isFailed(missing))
        #expect(fixture.server.requestCount(path: "/files/missing") == 1)
    }
}
