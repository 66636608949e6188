import CoderJXL
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// The thumbnail's peak memory against a full decode's (the issue's "peak memory for a 256 px
/// thumbnail of a 12 MP JXL"), by the process's peak resident-set growth (``MemoryProbe``).
/// libjxl 0.7 has no reduced decode, so a JPEG XL thumbnail is a full decode and its area
/// average: this suite measures that it costs no more than the full decode it is made from
/// (libjxl's image-out callbacks, the only way to see rows without the full buffer, hold a
/// full float frame instead: about 178 MB against 71 MB here, measured with a C program). Runs
/// only in a process of its own (`swift test --filter JXLPeakMemoryTests`), as the other coders'
/// peak-memory suites: tests beside it in parallel inflate the figures.
@Suite(
    "JPEG XL thumbnails peak no higher than a full decode", .serialized,
    .enabled(if: MemoryProbe.filterNames("JXLPeakMemoryTests"), "runs alone only: swift test --filter JXLPeakMemoryTests"),
    .disabled(if: MemoryProbe.underSanitizer, "resident-set figures are meaningless under a sanitizer"))
struct JXLPeakMemoryTests {
    /// A 4000×3000 RGB JPEG XL (lossy, effort 3), smooth with some texture.
    static let large: Data = {
        let (width, height) = (4000, 3000)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var state: UInt32 = 99
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 1_664_525 &+ 1_013_904_223
                let noise = UInt8(truncatingIfNeeded: state >> 28)
                let o = (y * width + x) * 3
                pixels[o] = UInt8(truncatingIfNeeded: x / 16) &+ noise
                pixels[o + 1] = UInt8(truncatingIfNeeded: y / 12) &+ noise
                pixels[o + 2] = UInt8(truncatingIfNeeded: (x + y) / 28)
            }
        }
        let image = try! Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels)
        return try! JXLCoder(effort: 3).encode(image, as: .jxl, options: EncodeOptions(quality: 0.85))
    }()

    @Test func thumbnailOfTwelveMegapixelsPeaksNoHigherThanFullDecode() throws {
        let data = Self.large
        let box = PixelSize(width: 256, height: 256)
        let (thumbnailPeak, fullPeak, full) = try MemoryProbe.thumbnailVersusFull(
            "CoderJXL", thumbnail: { try JXLCoder().decode(data, options: DecodeOptions(thumbnailPixelSize: box)) },
            check: { #expect($0.width == 256 && $0.height == 192) },
            full: { try JXLCoder().decode(data, options: DecodeOptions()) })
        let fullPixelBytes = 4000 * 3000 * 3
        #expect(full.pixels.count == fullPixelBytes)
        #expect(fullPeak >= fullPixelBytes * 9 / 10, "the probe saw only \(fullPeak) bytes for a \(fullPixelBytes)-byte decode")
        print("JXLPeakMemoryTests: thumbnail peak \(thumbnailPeak) bytes, full decode peak \(fullPeak) bytes")
        // The full frame (36 MB) and libjxl's working set, then the 147 KiB thumbnail: no more.
        #expect(thumbnailPeak <= fullPeak + fullPeak / 8, "thumbnail peak \(thumbnailPeak) bytes vs full \(fullPeak) bytes")
    }
}
