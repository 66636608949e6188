import AnimationReference
import CoderWebP
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("WebP metadata")
struct MetadataTests {
    @Test("EXIF orientation is reported, not applied", arguments: 2...8)
    func reportsOrientation(_ value: Int) throws {
        let image = try WebPCoder().decode(try TestData.data("webp/pillow/hopper_orientation_\(value).webp"), options: DecodeOptions())
        #expect(image.orientation.rawValue == value)
        #expect(image.width == 128 && image.height == 128)
    }

    @Test func iccProfileIsCarriedAndWrittenBack() throws {
        let data = try TestData.data("webp/pillow/flower2.webp")
        let image = try WebPCoder().decode(data, options: DecodeOptions())
        let icc = try #require(image.iccProfile)
        #expect(icc.count > 128 && Array(icc[36..<40]) == Array("acsp".utf8))
        let again = try WebPCoder().decode(try WebPCoder().encode(image, as: .webp, options: EncodeOptions()), options: DecodeOptions())
        #expect(again.iccProfile == icc)
    }

    @Test func plainFilesHaveNoMetadata() throws {
        let image = try WebPCoder().decode(try TestData.data("webp/pillow/hopper.webp"), options: DecodeOptions())
        #expect(image.iccProfile == nil && image.orientation == .up)
        #expect(image.pixelFormat == .rgb8, "lossy without ALPH decodes to RGB")
    }
}
