import CoderHEIF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// Runs alone (scripts/test.sh gives it its own process): it measures the process's peak
/// resident set.
@Suite("HEIF thumbnail peak memory")
struct HEIFPeakMemoryTests {
    /// A 3000x2000 HEIC carrying a 320 px thumbnail (made here with libheif's encoder through
    /// ``HEIFCoder/encode(_:as:options:thumbnailFitting:)``): a 256 px thumbnail decode is served
    /// from the stored thumbnail, so its peak memory is far below the full decode's.
    @Test(.disabled(if: MemoryProbe.underSanitizer, "resident-set figures are meaningless under a sanitizer"))
    func embeddedThumbnailPeaksFarBelowFullDecode() throws {
        let coder = HEIFCoder()
        let data = try coder.encode(
            try Fixtures.gradient(width: 3000, height: 2000), as: .heic, options: EncodeOptions(quality: 0.5), thumbnailFitting: 320)
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        let (peak, fullPeak, full) = try MemoryProbe.thumbnailVersusFull(
            "CoderHEIF", thumbnail: { try coder.decode(data, options: options) },
            check: { thumbnail in
                #expect(thumbnail.width == 256 && thumbnail.height == 171)
                #expect(thumbnail.decoderNotes[Image.MetadataKey.thumbnailSource] == "embedded")
            },
            full: { try coder.decode(data, options: DecodeOptions()) })
        let fullPixelBytes = 3000 * 2000 * 3
        #expect(full.width == 3000 && full.pixels.count == fullPixelBytes)
        #expect(fullPeak >= fullPixelBytes * 9 / 10, "the probe saw only \(fullPeak) bytes for a \(fullPixelBytes)-byte decode")
        #expect(peak <= fullPeak / 16, "thumbnail peak \(peak) bytes vs full \(fullPeak) bytes")
    }
}
