import AnimationReference
import CoderWebP
import Foundation
import ImageKernel
import ImageKernelConformance
import ImageKernelTestSupport
import Testing

@Suite("CoderConformance with WebP fixtures")
struct ConformanceTests {
    /// Lossy, lossy+alpha, lossless, lossless+alpha stills and two animations, with the pixels
    /// REFERENCE-ANIM.tsv's hashes vouch for (checked in ReferenceTests).
    static let paths = [
        "webp/libwebp-test-data/test.webp", "webp/libwebp-test-data/lossy_alpha1.webp",
        "webp/libwebp-test-data/lossless1.webp", "webp/libwebp-test-data/lossless_vec_2_5.webp",
        "webp/generated/still_lossless_alpha.webp", "webp/pillow/hopper.webp", "broken/webp/libwebp-test-data/very_short.webp",
        "webp/generated/anim_lossy_alpha.webp", "webp/generated/anim_lossless_alpha.webp",
    ]

    static let fixtures: [CoderFixture] = paths.compactMap { path in
        guard let data = try? TestData.data(path), let image = try? WebPCoder().decode(data, options: DecodeOptions()) else { return nil }
        return CoderFixture(name: path, data: data, format: .webp, width: image.width, height: image.height, pixelFormat: image.pixelFormat)
    }

    static let encodeTargets: [CoderConformance.EncodeTarget] = [
        .init(format: .webp, isLossless: true, options: EncodeOptions(lossless: true)),
        .init(format: .webp, isLossless: true, options: EncodeOptions(compressionLevel: 0, lossless: true), pixelFormats: [.rgba8, .rgb8]),
        .init(format: .webp, isLossless: false, options: EncodeOptions(quality: 0.9)),
        .init(format: .webp, isLossless: false, options: EncodeOptions(quality: 0.75, compressionLevel: 9), pixelFormats: [.rgb8, .rgba8]),
    ]

    @Test func everyFixtureLoads() {
        #expect(Self.fixtures.count == Self.paths.count)
    }

    @Test("WebPCoder passes every conformance case", arguments: CoderConformance.Case.allCases)
    func passesConformanceCase(_ testCase: CoderConformance.Case) async throws {
        let suite = CoderConformance(coder: WebPCoder(), fixtures: Self.fixtures, encodeTargets: Self.encodeTargets)
        try await suite.run(case: testCase)
    }
}
