import CoderTIFF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// The thumbnail's peak memory against a full decode's (the issue's "peak memory for a 256 px
/// thumbnail of a 12 MP TIFF"), by the process's peak resident-set growth (``MemoryProbe``). Runs
/// only in a process of its own (`swift test --filter TIFFPeakMemoryTests`), as the other coders'
/// peak-memory suites: tests beside it in parallel inflate the figures.
@Suite(
    "TIFF thumbnails peak far below a full decode's memory", .serialized,
    .enabled(if: MemoryProbe.filterNames("TIFFPeakMemoryTests"), "runs alone only: swift test --filter TIFFPeakMemoryTests"),
    .disabled(if: MemoryProbe.underSanitizer, "resident-set figures are meaningless under a sanitizer"))
struct TIFFPeakMemoryTests {
    /// A 4000×3000 RGB TIFF (36 MB of pixels, deflate), one noisy row shifted per row.
    static let large: Data = {
        let (width, height) = (4000, 3000)
        var state: UInt32 = 99
        let row = (0..<((width + height) * 3)).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            let start = (y * 7 % height) * 3
            pixels.replaceSubrange((y * width * 3)..<((y + 1) * width * 3), with: row[start..<(start + width * 3)])
        }
        let image = try! Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels)
        return try! TIFFCoder().encode(image, as: .tiff, options: EncodeOptions(compressionLevel: 1))
    }()

    @Test func thumbnailOfTwelveMegapixelsPeaksFarBelowFullDecode() throws {
        let data = Self.large
        let box = PixelSize(width: 256, height: 256)
        let (thumbnailPeak, fullPeak, full) = try MemoryProbe.thumbnailVersusFull(
            "CoderTIFF", thumbnail: { try TIFFCoder().decode(data, options: DecodeOptions(thumbnailPixelSize: box)) },
            check: { #expect($0.width == 256 && $0.height == 192) },
            full: { try TIFFCoder().decode(data, options: DecodeOptions()) })
        let fullPixelBytes = 4000 * 3000 * 3
        #expect(full.pixels.count == fullPixelBytes)
        // The probe must see the full buffer, or its small figure for the thumbnail means nothing.
        #expect(fullPeak >= fullPixelBytes * 9 / 10, "the probe saw only \(fullPeak) bytes for a \(fullPixelBytes)-byte decode")
        // The thumbnail holds one ~256 KiB strip, a row of converted pixels and its sums (~100 KiB)
        // and the 147 KiB output, plus libtiff's and zlib's working set.
        #expect(thumbnailPeak <= fullPeak / 16, "thumbnail peak \(thumbnailPeak) bytes vs full \(fullPeak) bytes")
    }
}
