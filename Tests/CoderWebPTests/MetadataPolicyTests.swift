import CoderWebP
import ImageKernel
import ImageKernelTestSupport
import Testing

/// EXIF and XMP chunks (VP8X) through each ``MetadataPolicy``; WebP has no IPTC chunk.
@Suite("WebP metadata policy")
struct WebPMetadataPolicyTests {
    @Test("each policy writes its share of EXIF and XMP, read back by the decoder and searched for in the bytes")
    func policies() throws {
        let problems = try MetadataFixture.roundTripProblems(coder: WebPCoder(), format: .webp, kinds: [.exif, .xmp])
        #expect(problems.isEmpty, "\(problems)")
    }
}
