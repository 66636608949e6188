import Foundation
import ImageKernelTestSupport
import ImageKernel
import LoaderHTTP
import Testing

/// Answers found by fuzzing (Fuzz/fuzz-http-response), kept as regression tests.
@Suite struct HostileResponseTests {
    /// A folded line right after the status line, on a loader whose earlier transfers succeeded.
    /// With libcurl before 8.1.0 a reused easy handle unfolded it into the previous transfer's
    /// freed header (a use-after-free inside curl); the loader no longer reuses handles there, so
    /// the answer is a typed error or a result and the loader goes on working.
    @Test func aFoldedFirstHeaderAfterEarlierTransfersIsHandled() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let folded = try Data(contentsOf: Self.regression("libcurl-7.88-uaf-folded-status"))
        fixture.server.addFile("folded", data: folded)
        for _ in 0..<20 {
            #expect(try await fixture.load("/files/png").data == fixture.png)
            if let error = await loadError({ try await fixture.load("/raw/folded") }) {
                #expect(error.code != .cancelled && error.code != .internalError, "\(error)")
            }
        }
        #expect(try await fixture.load("/files/jpeg").data == fixture.jpeg)
    }

    /// A reproducer kept under Fuzz/regressions/fuzz-http-response/.
    static func regression(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/regressions/fuzz-http-response/\(name)")
    }
}
