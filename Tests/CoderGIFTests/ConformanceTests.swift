import CoderGIF
import Foundation
import ImageKernel
import ImageKernelConformance
import ImageKernelTestSupport
import Testing

@Suite("CoderConformance with GIF fixtures")
struct ConformanceTests {
    static let paths = [
        "gif/generated/anim_dispose_mixed.gif", "gif/generated/anim_local_palettes.gif", "gif/generated/still_interlaced.gif",
        "gif/generated/one_pixel.gif", "gif/pillow/star.gif", "gif/pillow/chi.gif", "gif/pillow/dispose_prev.gif",
        "gif/pillow/no_palette.gif",
    ]

    static let fixtures: [CoderFixture] = paths.compactMap { path in
        guard let data = try? TestData.data(path), let image = try? GIFCoder().decode(data, options: DecodeOptions()) else { return nil }
        return CoderFixture(name: path, data: data, format: .gif, width: image.width, height: image.height, pixelFormat: .rgba8)
    }

    /// GIF holds at most 256 colours and 1-bit alpha, so the suite's gradients (hundreds of
    /// colours, partial alpha) cannot round-trip exactly: it is checked as a lossy target on
    /// opaque gradients. Exact round trips of images with at most 256 colours are EncodingTests'.
    static let encodeTargets: [CoderConformance.EncodeTarget] = [
        .init(format: .gif, isLossless: false, pixelFormats: [.rgba8, .rgb8, .gray8, .grayAlpha8], maxMeanError: 4),
    ]

    @Test func everyFixtureLoads() {
        #expect(Self.fixtures.count == Self.paths.count)
    }

    @Test("GIFCoder passes every conformance case", arguments: CoderConformance.Case.allCases)
    func passesConformanceCase(_ testCase: CoderConformance.Case) async throws {
        let suite = CoderConformance(coder: GIFCoder(), fixtures: Self.fixtures, encodeTargets: Self.encodeTargets)
        try await suite.run(case: testCase)
    }
}
