import Foundation
import ImageKernel
import ImageKernelConformance
import Testing

@Suite("CoderConformance")
struct CoderConformanceTests {
    static func suite(_ coder: any ImageCoder, timeout: Duration = .seconds(60)) -> CoderConformance {
        CoderConformance(coder: coder, fixtures: RawFixtures.all, encodeTargets: RawFixtures.encodeTargets, timeout: timeout)
    }

    @Test func correctCoderPassesEveryCase() async throws {
        try await Self.suite(RawCoder()).run()
    }

    @Test(arguments: CoderConformance.Case.allCases)
    func everyCaseCatchesACoderThatBreaksIt(_ testCase: CoderConformance.Case) async {
        let failure = await #expect(throws: ConformanceFailure.self) {
            try await Self.suite(BrokenCoder(breaking: testCase)).run(case: testCase)
        }
        #expect(failure?.suite == CoderConformance.suiteName)
        #expect(failure?.caseName == testCase.rawValue)
        #expect(failure?.input.isEmpty == false)
    }

    @Test func runReportsEveryFailedCaseAndOnlyThose() async {
        let report = await #expect(throws: ConformanceReport.self) {
            try await Self.suite(BrokenCoder(breaking: .thumbnailFitsRequestedSize)).run()
        }
        #expect(report?.failedCases == [CoderConformance.Case.thumbnailFitsRequestedSize.rawValue])
        #expect(report?.description.contains("thumbnailFitsRequestedSize") == true)
    }

    @Test func failureNamesTheFixtureAndItsBytes() async {
        let failure = await #expect(throws: ConformanceFailure.self) {
            try await Self.suite(BrokenCoder(breaking: .decodesEveryFixture)).run(case: .decodesEveryFixture)
        }
        #expect(failure?.input.contains("one-pixel.ikraw") == true)
        #expect(failure?.input.contains("49 4b 52 41 57 31") == true)  // "IKRAW1"
    }

    @Test func coderWithoutFixturesFails() async {
        let suite = CoderConformance(coder: RawCoder(), fixtures: [])
        await #expect(throws: ConformanceFailure.self) { try await suite.run(case: .decodesEveryFixture) }
    }

    @Test func listedEncodeFormatTheCoderDeniesFails() async {
        let suite = CoderConformance(
            coder: RawCoder(), fixtures: RawFixtures.all, encodeTargets: [.init(format: .png, isLossless: true)])
        await #expect(throws: ConformanceFailure.self) { try await suite.run(case: CoderConformance.Case.roundTripKeepsSize) }
    }

    @Test func hangingCoderFailsItsCaseInsteadOfHanging() async {
        let suite = Self.suite(HangingCoder(), timeout: .milliseconds(300))
        let failure = await #expect(throws: ConformanceFailure.self) { try await suite.run(case: .decodesEveryFixture) }
        #expect(failure?.message.contains("did not finish") == true)
    }
}

/// Decodes correctly, but only after a long pause.
private struct HangingCoder: ImageCoder {
    var name: String { "HangingCoder" }
    func canDecode(_ data: Data) -> Bool { RawCoder().canDecode(data) }
    func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        Thread.sleep(forTimeInterval: 2)
        return try RawCoder().decode(data, options: options)
    }
}
