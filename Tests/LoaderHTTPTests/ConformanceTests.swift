import Foundation
import ImageKernelTestSupport
import ImageKernel
import ImageKernelConformance
import LoaderHTTP
import Testing

/// The kernel's loader conformance suite against HTTPLoader and the test server.
@Suite struct ConformanceTests {
    @Test(arguments: LoaderConformance.Case.allCases)
    func httpLoaderPassesTheLoaderConformanceSuite(_ testCase: LoaderConformance.Case) async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let refusing = try RefusingPort()
        let unreachable = refusing.url("/files/png")
        let suite = LoaderConformance(
            loader: fixture.loader, url: fixture.server.url("/files/jpeg?chunk=1000&pace=1"), expectedData: fixture.jpeg,
            unreachableURL: unreachable, unreachableIsTransient: true,
            slowURL: fixture.server.url("/stall-body/20000"), timeout: .seconds(10))
        try await suite.run(case: testCase)
        withExtendedLifetime(refusing) {}
    }
}
