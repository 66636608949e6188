import CoderJXL
import Foundation
import ImageKernel
import ImageKernelConformance
import ImageKernelTestSupport
import Testing

@Suite("CoderConformance with JPEG XL fixtures")
struct ConformanceTests {
    /// Codestream and container, lossy and lossless, gray, alpha, 8 and 12 bits, orientation,
    /// an animation, a JPEG reconstruction file: each path of the decoder once.
    static let paths = [
        "jxl/conformance/bicycles.jxl", "jxl/conformance/grayscale.jxl", "jxl/conformance/lz77_flower.jxl",
        "jxl/conformance/alpha_triangles.jxl", "jxl/conformance/bench_oriented_brg.jxl", "jxl/conformance/grayscale_jpeg.jxl",
        "jxl/libjxl-testdata/cropped_traffic_light.jxl", "jxl/conformance/patches_lossless.jxl",
    ]

    static let fixtures: [CoderFixture] = paths.compactMap { path in
        guard let data = try? TestData.data(path), let image = try? JXLCoder().decode(data, options: DecodeOptions()) else { return nil }
        return CoderFixture(
            name: path, data: data, format: .jxl, width: image.width, height: image.height, pixelFormat: image.pixelFormat,
            orientation: image.orientation)
    }

    static let encodeTargets: [CoderConformance.EncodeTarget] = [
        .init(format: .jxl, isLossless: true, options: EncodeOptions(lossless: true), pixelFormats: [.rgba8, .rgb8, .gray8, .grayAlpha8, .rgba16, .rgb16, .gray16, .grayAlpha16]),
        .init(format: .jxl, isLossless: false, options: EncodeOptions(quality: 0.9), pixelFormats: [.rgba8, .rgb8, .gray8, .grayAlpha8]),
    ]

    @Test func everyFixtureLoads() {
        #expect(Self.fixtures.count == Self.paths.count)
    }

    @Test("JXLCoder passes every conformance case", arguments: CoderConformance.Case.allCases)
    func passesConformanceCase(_ testCase: CoderConformance.Case) async throws {
        let suite = CoderConformance(coder: JXLCoder(), fixtures: Self.fixtures, encodeTargets: Self.encodeTargets)
        try await suite.run(case: testCase)
    }
}
