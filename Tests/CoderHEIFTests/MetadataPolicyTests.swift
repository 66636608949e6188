import CoderHEIF
import ImageKernel
import ImageKernelTestSupport
import Testing

/// EXIF and XMP (`mime` item, `application/rdf+xml`) items through each ``MetadataPolicy``, in
/// AVIF and HEIC; HEIF has no IPTC item.
@Suite("HEIF metadata policy")
struct HEIFMetadataPolicyTests {
    @Test("each policy writes its share of EXIF and XMP, read back by the decoder and searched for in the bytes", arguments: [ImageFormat.avif, .heic])
    func policies(_ format: ImageFormat) throws {
        let coder = HEIFCoder()
        guard coder.canEncode(format) else { return }
        let problems = try MetadataFixture.roundTripProblems(coder: coder, format: format, kinds: [.exif, .xmp])
        #expect(problems.isEmpty, "\(problems)")
    }
}
