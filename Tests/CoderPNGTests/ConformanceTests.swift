import CoderPNG
import Foundation
import ImageKernelTestSupport
import ImageKernel
import ImageKernelConformance
import Testing

@Suite("CoderConformance with PngSuite fixtures")
struct ConformanceTests {
    /// Every valid top-level PngSuite file, sized from REFERENCE.tsv.
    static let fixtures: [CoderFixture] = ReferenceTable.validPNGs
        .filter { $0.path.hasPrefix("pngsuite/") && !$0.path.dropFirst("pngsuite/".count).contains("/") }
        .compactMap { row in
            guard let data = try? TestData.data(row.path), let width = row.width, let height = row.height else { return nil }
            return CoderFixture(name: row.path, data: data, format: .png, width: width, height: height)
        }

    static let allFormats: [PixelFormat] = [.rgba8, .rgb8, .gray8, .grayAlpha8, .rgba16, .rgb16, .gray16, .grayAlpha16]

    static let encodeTargets: [CoderConformance.EncodeTarget] = [
        .init(format: .png, isLossless: true, pixelFormats: allFormats),
        .init(format: .png, isLossless: true, options: EncodeOptions(compressionLevel: 9, progressive: true), pixelFormats: allFormats),
        .init(format: .png, isLossless: true, options: EncodeOptions(compressionLevel: 0), pixelFormats: [.rgba8, .gray16]),
    ]

    @Test func fixturesCoverPngSuite() {
        #expect(Self.fixtures.count >= 150)
    }

    @Test("PNGCoder passes every conformance case", arguments: CoderConformance.Case.allCases)
    func passesConformanceCase(_ testCase: CoderConformance.Case) async throws {
        let suite = CoderConformance(coder: PNGCoder(), fixtures: Self.fixtures, encodeTargets: Self.encodeTargets)
        try await suite.run(case: testCase)
    }

    @Test func passesWithSixteenBitDecodes() async throws {
        let suite = CoderConformance(
            coder: PNGCoder(), fixtures: Self.fixtures, encodeTargets: Self.encodeTargets,
            decodeOptions: DecodeOptions(preserve16Bit: true))
        try await suite.run()
    }
}
