import ImageKernel
import ImageKernelTestSupport
import Testing
import Transformers

/// Every transformer keeps the image's EXIF, XMP and IPTC (an encode's ``MetadataPolicy`` decides
/// what is written); `orient` alone changes the orientation, to up.
@Suite("Transformers keep metadata")
struct MetadataKeptTests {
    static let steps = [
        "orient", "resize:fit:16:16", "resize:fill:20:10", "crop:2:2:10:8", "flip:h", "rotate:90", "rotate:33:ff000080",
        "blur:1.5", "sharpen:1", "gray", "tint:00ff0040", "round:4", "circle",
        "crop:12:12:smart", "pad:1:2:3:4", "extend:40:30", "background:ffffff", "trim", "resize:fit:8:8/dpr:2",
    ]

    @Test(arguments: steps)
    func stepKeepsTheBlocks(_ step: String) throws {
        var image = try Image(width: 33, height: 21, pixelFormat: .rgb8, pixels: (0..<(33 * 21 * 3)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        image.metadata = MetadataFixture.metadata()
        image.orientation = .right
        let out = try TransformSpec(parsing: step).transform(image)
        #expect(out.metadata == image.metadata, "\(step)")
        #expect(out.orientation == (step == "orient" ? .up : .right), "\(step)")
    }
}
