import CoderJPEG
import Foundation
import ImageKernelTestSupport
import ImageKernel
import ImageKernelConformance
import Testing

@Suite("JPEGCoder passes the coder conformance suite")
struct ConformanceTests {
    /// A spread of the corpus: baseline, arithmetic, progressive, restart markers, grayscale,
    /// CMYK (baseline and progressive), non-interleaved, odd sizes, ICC and EXIF orientation.
    static let fixturePaths = [
        "jpeg/libjpeg-turbo/testorig.jpg", "jpeg/libjpeg-turbo/testimgari.jpg", "jpeg/derived/testorig-progressive.jpg",
        "jpeg/derived/testorig-restart1-optimized.jpg", "jpeg/derived/testorig-grayscale.jpg", "jpeg/mozilla/jpg-cmyk-1.jpg",
        "jpeg/derived/pil_sample_cmyk-progressive.jpg", "jpeg/jpeg-decoder/non-interleaved-mcu.jpg", "jpeg/mozilla/jpg-size-17x17.jpg",
        "jpeg/mozilla/jpg-srgb-icc.jpg", "exif-orientation/pillow/hopper_orientation_6.jpg", "exif-orientation/pillow/orientation_rectangle.jpg",
    ]

    static func fixtures() throws -> [CoderFixture] {
        try fixturePaths.map { path in
            let row = try #require(Reference.rows.first { $0.path == path && !$0.isError })
            return CoderFixture(
                name: path, data: try TestData.data(path), format: .jpeg, width: row.width, height: row.height,
                pixelFormat: row.mode == "L" ? .gray8 : .rgb8,
                orientation: row.exifOrientation.flatMap(ExifOrientation.init(rawValue:)) ?? .up)
        }
    }

    @Test("every case of CoderConformance passes", arguments: CoderConformance.Case.allCases)
    func conformance(_ testCase: CoderConformance.Case) async throws {
        let suite = CoderConformance(
            coder: JPEGCoder(), fixtures: try Self.fixtures(),
            encodeTargets: [.init(format: .jpeg, isLossless: false, options: EncodeOptions(quality: 0.92))])
        try await suite.run(case: testCase)
    }
}
