import CoderJPEG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// EXIF (APP1), XMP (APP1) and IPTC (APP13) through each ``MetadataPolicy``, read back by the decoder
/// and searched for in the file's bytes.
@Suite("JPEG metadata policy")
struct JPEGMetadataPolicyTests {
    /// A JPEG carrying the fixture's EXIF, XMP and IPTC, as a camera and an editor leave them.
    static func source(orientation: Int = 6) throws -> Data {
        var image = try Synthetic.rgbImage(width: 64, height: 48)
        image.metadata = MetadataFixture.metadata(orientation: orientation)
        image.orientation = ExifOrientation(rawValue: orientation)!
        return try JPEGCoder().encode(image, as: .jpeg, options: EncodeOptions(metadata: .all))
    }

    @Test("the decoder reads EXIF, XMP and IPTC as the file stores them")
    func decoderReadsTheBlocks() throws {
        let image = try JPEGCoder().decode(try Self.source(), options: DecodeOptions())
        #expect(image.metadata == MetadataFixture.metadata(), "the blocks read back as written")
        #expect(image.orientation == .right)
        #expect(image.exif == MetadataFixture.exif(), "`exif` reads the EXIF block")
    }

    @Test("each policy writes its share, orientation applied or not", arguments: MetadataPolicy.allCases)
    func policies(_ policy: MetadataPolicy) throws {
        for applied in [true, false] {
            var image = try JPEGCoder().decode(try Self.source(), options: DecodeOptions())
            if applied { image.orientation = .up }  // as OrientTransformer leaves it
            let file = try JPEGCoder().encode(image, as: .jpeg, options: EncodeOptions(metadata: policy))
            let back = try JPEGCoder().decode(file, options: DecodeOptions())
            #expect(back.orientation == image.orientation)
            let problems = MetadataFixture.problems(readBack: back.metadata, file: file, policy: policy, orientation: image.orientation, kinds: .all)
            #expect(problems.isEmpty, "\(policy), orientation applied: \(applied): \(problems)")
        }
    }

    @Test("the default writes no metadata at all")
    func defaultIsNone() throws {
        var image = try JPEGCoder().decode(try Self.source(), options: DecodeOptions())
        image.orientation = .up
        let file = try JPEGCoder().encode(image, as: .jpeg, options: EncodeOptions())
        #expect(try JPEGCoder().decode(file, options: DecodeOptions()).metadata.isEmpty)
        #expect(!MetadataFixture.contains(file, Array("Exif".utf8) + [0, 0]))
    }

    @Test("the Y′CbCr planes carry the metadata to the planar encoder", arguments: MetadataPolicy.allCases)
    func planes(_ policy: MetadataPolicy) throws {
        let planes = try #require(try JPEGCoder().decodeYCbCr(try Self.source(orientation: 1), options: DecodeOptions()))
        let expected = MetadataFixture.metadata(orientation: 1)
        #expect(planes.metadata.exif == expected.exif && planes.metadata.iptc == expected.iptc)
        #expect(String(decoding: planes.metadata.xmp ?? [], as: UTF8.self).contains("tiff:Orientation=\"1\""), "the source was written with its orientation applied")
        let file = try JPEGCoder().encode(planes, options: EncodeOptions(metadata: policy))
        let back = try JPEGCoder().decode(file, options: DecodeOptions())
        let problems = MetadataFixture.problems(readBack: back.metadata, file: file, policy: policy, orientation: .up, kinds: .all)
        #expect(problems.isEmpty, "\(policy): \(problems)")
    }

    @Test("the progressive decoder reads the blocks too")
    func progressive() throws {
        let data = try Self.source()
        let decoder = JPEGCoder().makeProgressiveDecoder(options: DecodeOptions())
        var last: Image?
        for start in stride(from: 0, to: data.count, by: 512) {
            if let image = try decoder.append(data[start..<min(data.count, start + 512)]) { last = image }
        }
        #expect(last?.metadata == MetadataFixture.metadata(), "the blocks read back as written")
    }
}
