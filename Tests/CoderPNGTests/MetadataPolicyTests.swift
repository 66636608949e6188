import CoderPNG
import ImageKernel
import ImageKernelTestSupport
import Testing

/// EXIF (eXIf) and XMP (iTXt `XML:com.adobe.xmp`) through each ``MetadataPolicy``; PNG has no IPTC.
@Suite("PNG metadata policy")
struct PNGMetadataPolicyTests {
    @Test("each policy writes its share of EXIF and XMP, read back by the decoder and searched for in the bytes")
    func policies() throws {
        let problems = try MetadataFixture.roundTripProblems(coder: PNGCoder(), format: .png, kinds: [.exif, .xmp])
        #expect(problems.isEmpty, "\(problems)")
    }
}
