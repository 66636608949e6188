import CoderHEIF
import Foundation
import ImageKernel
import ImageKernelConformance
import ImageKernelTestSupport
import Testing

@Suite("CoderConformance with HEIC, HEIF and AVIF fixtures")
struct ConformanceTests {
    /// Small corpus files of every kind (HEVC and AV1, alpha, 8/10/12-bit, gray, grid-wrapped
    /// and clap-cropped by a few pixels), sized from REFERENCE-LIBHEIF.tsv. Kept small: the round-trip cases encode each.
    static let fixturePaths = [
        "heif/libheif/fuzz-seeds/colors-with-alpha.heic", "heif/libheif/fuzz-seeds/hevc32.heif",
        "heif/libheif/fuzz-seeds/avif32.heif", "heif/pillow/hopper.avif", "heif/pillow/hopper.heif",
        "heif/pillow/transparency.avif", "heif/pillow_heif/RGBA_10__29x100.heif", "heif/pillow_heif/L_12__128x128.heif",
        "heif/pillow_heif/LA_8__29x100.heif", "heif/pillow_heif/RGB_8_chroma444.heif",
        "heif/libheif/tests-data/rainbow-451x461.heic",
    ]
    // Not kimono.*.crop.avif: its 385x330 crop must decode all of a 722x1024 coded image, so a
    // pixel limit of exactly 385x330 refuses it (coded sizes count; see PixelLimitTests).

    static let fixtures: [CoderFixture] = fixturePaths.compactMap { path in
        guard let row = LibheifReference.decodable.first(where: { $0.path == path }), let data = try? TestData.data(path) else { return nil }
        return CoderFixture(
            name: path, data: data, format: ImageFormat.sniff(data), width: row.width, height: row.height,
            pixelFormat: expectedFormat(path, hasAlpha: row.hasAlpha), orientation: .up)
    }

    /// pillow_heif's `L_*` and `LA_*` files are monochrome (gray, gray+alpha); the rest colour.
    static func expectedFormat(_ path: String, hasAlpha: Bool) -> PixelFormat {
        let gray = path.contains("/L_") || path.contains("/LA_")
        return gray ? (hasAlpha ? .grayAlpha8 : .gray8) : (hasAlpha ? .rgba8 : .rgb8)
    }

    static let encodeTargets: [CoderConformance.EncodeTarget] = [
        .init(format: .avif, isLossless: true, options: EncodeOptions(lossless: true)),
        .init(format: .avif, isLossless: false, options: EncodeOptions(quality: 0.85)),
        .init(format: .heic, isLossless: false, options: EncodeOptions(quality: 0.85)),
    ]

    @Test func everyFixtureIsPresent() {
        #expect(Self.fixtures.count == Self.fixturePaths.count)
        #expect(Set(Self.fixtures.map(\.format)) == [.heic, .avif])
    }

    @Test("HEIFCoder passes every conformance case", arguments: CoderConformance.Case.allCases)
    func passesConformanceCase(_ testCase: CoderConformance.Case) async throws {
        let suite = CoderConformance(
            coder: HEIFCoder(), fixtures: Self.fixtures, encodeTargets: Self.encodeTargets, claimedFormats: [.heic, .heif, .avif])
        try await suite.run(case: testCase)
    }
}
