import CoderSVG
import Foundation
import ImageKernel
import ImageKernelConformance
import ImageKernelTestSupport
import Testing

/// SVG is decode-only: no encode targets, so the round-trip cases have nothing to check and pass,
/// and `refusesUnsupportedEncodeFormat` checks that nothing is encoded.
@Suite("CoderConformance with SVG fixtures")
struct ConformanceTests {
    /// Shapes, a gradient, a filter, a nested svg and two aspect ratios.
    static let paths = [
        "svg/resvg/shapes/rect/simple-case.svg", "svg/resvg/paint-servers/radialGradient/default-attributes.svg",
        "svg/resvg/filters/feGaussianBlur/simple-case.svg", "svg/resvg/structure/svg/nested-svg.svg",
        "svg/resvg/structure/svg/preserveAspectRatio=xMidYMid.svg", "svg/resvg/masking/mask/simple-case.svg",
    ]

    static let fixtures: [CoderFixture] = paths.compactMap { path in
        guard let data = try? TestData.data(path), let image = try? SVGCoder().decode(data, options: DecodeOptions()) else { return nil }
        // A cut SVG may still be well-formed up to a point librsvg accepts; rejectsTruncation
        // false asks for an error or a consistent image.
        return CoderFixture(
            name: path, data: data, format: .svg, width: image.width, height: image.height, pixelFormat: .rgba8,
            rgba8Pixels: image.rgba8Pixels(), rejectsTruncation: false)
    }

    @Test func everyFixtureLoads() {
        #expect(Self.fixtures.count == Self.paths.count)
    }

    @Test("SVGCoder passes every conformance case", arguments: CoderConformance.Case.allCases)
    func passesConformanceCase(_ testCase: CoderConformance.Case) async throws {
        try await CoderConformance(coder: SVGCoder(), fixtures: Self.fixtures).run(case: testCase)
    }
}
