import CoderJPEG
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

@Suite("Decoding matches the reference corpus")
struct ReferenceDecodingTests {
    let coder = JPEGCoder()

    @Test("the corpus is present and has the expected JPEG rows")
    func corpusIsPresent() {
        #expect(Reference.decodableJPEGs.count >= 60, "found \(Reference.decodableJPEGs.count) decodable JPEG rows")
    }

    @Test("every non-ERROR JPEG decodes to its reference RGBA hash", arguments: Reference.decodableJPEGs)
    func decodesToReferenceHash(_ row: ReferenceRow) throws {
        let image = try coder.decode(TestData.data(row.path), options: DecodeOptions())
        #expect(image.width == row.width && image.height == row.height)
        #expect(image.pixelFormat == (row.mode == "L" ? .gray8 : .rgb8))
        #expect(image.sourceFormat == .jpeg)
        #expect(!image.isPreview)
        #expect(rgbaHash(image) == row.sha256RGBA)
    }

    @Test("EXIF orientation is reported as the reference reads it", arguments: Reference.decodableJPEGs)
    func reportsExifOrientation(_ row: ReferenceRow) throws {
        let image = try coder.decode(TestData.data(row.path), options: DecodeOptions())
        let expected = row.exifOrientation.flatMap(ExifOrientation.init(rawValue:)) ?? .up
        #expect(image.orientation == expected)
    }
}
