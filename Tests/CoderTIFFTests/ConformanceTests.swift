import CoderTIFF
import Foundation
import ImageKernel
import ImageKernelConformance
import ImageKernelTestSupport
import Testing

@Suite("CoderConformance with TIFF fixtures")
struct ConformanceTests {
    /// Strips and tiles, both byte orders, planar 2, 8 and 16 bits, palette, gray+alpha, JPEG,
    /// BigTIFF, CCITT: each path of the decoder once.
    static let paths = [
        "tiff/pillow/hopper.tif", "tiff/derived/hopper_be_lzw.tif", "tiff/derived/hopper_lzw_tiled64.tif",
        "tiff/derived/hopper_zip_tiled_planar.tif", "tiff/derived/hopper_rgb16_be_zip.tif", "tiff/derived/hopper_palette8_lzw.tif",
        "tiff/derived/hopper_gray_alpha.tif", "tiff/derived/hopper_rgba_unassoc.tif", "tiff/pillow/hopper_jpg.tif",
        "tiff/pillow/hopper_bigtiff.tif", "tiff/pillow/hopper_g4.tif", "tiff/pillow/16bit.MM.deflate.tif",
    ]

    static let fixtures: [CoderFixture] = paths.compactMap { path in
        guard let data = try? TestData.data(path), let image = try? TIFFCoder().decode(data, options: DecodeOptions()) else { return nil }
        return CoderFixture(
            name: path, data: data, format: .tiff, width: image.width, height: image.height, pixelFormat: image.pixelFormat,
            orientation: image.orientation)
    }

    static let encodeTargets: [CoderConformance.EncodeTarget] = [
        .init(format: .tiff, isLossless: true, pixelFormats: [.rgba8, .rgb8, .gray8, .grayAlpha8, .rgba16, .rgb16, .gray16, .grayAlpha16])
    ]

    @Test func everyFixtureLoads() {
        #expect(Self.fixtures.count == Self.paths.count)
    }

    @Test("TIFFCoder passes every conformance case", arguments: CoderConformance.Case.allCases)
    func passesConformanceCase(_ testCase: CoderConformance.Case) async throws {
        let suite = CoderConformance(coder: TIFFCoder(), fixtures: Self.fixtures, encodeTargets: Self.encodeTargets)
        try await suite.run(case: testCase)
    }

    @Test("TIFFCoder writing LZW passes the encode cases", arguments: [CoderConformance.Case.roundTripKeepsSize, .roundTripKeepsPixels])
    func lzwPassesEncodeCases(_ testCase: CoderConformance.Case) async throws {
        let suite = CoderConformance(coder: TIFFCoder(compression: .lzw), fixtures: Self.fixtures, encodeTargets: Self.encodeTargets)
        try await suite.run(case: testCase)
    }
}
