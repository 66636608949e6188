import ImageKernel
import Testing

@Suite("EXIF orientation from TIFF")
struct ExifOrientationTests {
    /// A little-endian TIFF header with one IFD entry: Orientation (SHORT) = `value`.
    private func tiff(_ value: UInt8) -> [UInt8] {
        [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00, 0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, value, 0x00, 0x00, 0x00,
         0x00, 0x00, 0x00, 0x00]
    }

    @Test func readsTheOrientationTagWithOrWithoutTheExifHeader() {
        #expect(ExifOrientation(tiff: tiff(6)) == .right)
        #expect(ExifOrientation(tiff: Array("Exif".utf8) + [0, 0] + tiff(8)) == .left)
    }

    @Test func malformedOrOutOfRangeIsNil() {
        #expect(ExifOrientation(tiff: tiff(9)) == nil)
        #expect(ExifOrientation(tiff: Array(tiff(6).prefix(12))) == nil)
        #expect(ExifOrientation(tiff: [0x4D, 0x4D]) == nil)
    }
}
