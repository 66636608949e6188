import CoderPNG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// The peak-memory claims, measured by the process's peak resident-set growth (see
/// ``MemoryProbe``). The suite runs only in a process of its own, when a `--filter` names it
/// (`swift test --filter PNGPeakMemoryTests`): tests running beside it in parallel inflate the
/// figures (17 MB instead of 0.3 MB seen for the thumbnail), so under a wider filter it is skipped.
@Suite(
    "Row-by-row thumbnails and scale-downs peak far below a full decode's memory", .serialized,
    .enabled(if: MemoryProbe.filterNames("PNGPeakMemoryTests"), "runs alone only: swift test --filter PNGPeakMemoryTests"),
    .disabled(if: MemoryProbe.underSanitizer, "resident-set figures are meaningless under a sanitizer"))
struct PNGPeakMemoryTests {
    let coder = PNGCoder()

    /// A 6000×4000 RGB PNG (72 MB of pixels), made here with the encoder: one noisy row shifted
    /// per row, so building it is fast even in a debug build.
    static let large: Data = {
        let (width, height) = (6000, 4000)
        let row = syntheticPixels(width: width + height, height: 1, channels: 3, bitsPerComponent: 8, seed: 5)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        pixels.withUnsafeMutableBufferPointer { target in
            row.withUnsafeBufferPointer { source in
                for y in 0..<height {
                    let start = (y * 7 % height) * 3
                    target.baseAddress!.advanced(by: y * width * 3).update(from: source.baseAddress!.advanced(by: start), count: width * 3)
                }
            }
        }
        let image = try! Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels)
        return try! PNGCoder().encode(image, as: .png, options: EncodeOptions(compressionLevel: 1))
    }()

    /// The median peak of three runs of `options`, and the full decode's peak as the control.
    private func peaks(_ options: DecodeOptions, check: (Image) -> Void) throws -> (scaled: Int, full: Int) {
        let data = Self.large
        var scaledPeaks: [Int] = []
        for _ in 0..<3 {
            let (image, bytes) = try MemoryProbe.peakGrowth { try coder.decode(data, options: options) }
            check(image)
            scaledPeaks.append(bytes)
        }
        let (full, fullPeak) = try MemoryProbe.peakGrowth { try coder.decode(data, options: DecodeOptions()) }
        let fullPixelBytes = 6000 * 4000 * 3
        #expect(full.width == 6000 && full.pixels.count == fullPixelBytes)
        // The probe must see the full buffer, or its small figure for the thumbnail means nothing.
        #expect(fullPeak >= fullPixelBytes * 9 / 10, "the probe saw only \(fullPeak) bytes for a \(fullPixelBytes)-byte decode")
        return (scaledPeaks.sorted()[1], fullPeak)
    }

    @Test func pngThumbnailPeakMemoryIsFarBelowFullDecode() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        let (thumbnailPeak, fullPeak) = try peaks(options) { #expect($0.width == 256 && $0.height == 171) }
        print("CoderPNG memory: full decode peak RSS growth \(fullPeak / 1024) KiB; 256px thumbnail \(thumbnailPeak / 1024) KiB")
        // The thumbnail's own buffers are about 0.3 MB (output, one row, column sums); allow for
        // libpng's and the allocator's working set.
        #expect(thumbnailPeak <= fullPeak / 16, "thumbnail peak \(thumbnailPeak) bytes vs full \(fullPeak) bytes")
    }

    @Test func pngScaleDownPeakMemoryIsFarBelowFullDecode() throws {
        // 24 megapixels is past the default scale-down ceiling (4 × the limit): raised to the source.
        let options = DecodeOptions(pixelLimit: 1_000_000, scaleDownLargeImages: true, scaleDownSourcePixelLimit: 6000 * 4000)
        let (scaledPeak, fullPeak) = try peaks(options) { #expect($0.width * $0.height <= 1_000_000 && $0.width == 1224) }
        print("CoderPNG memory: full decode peak RSS growth \(fullPeak / 1024) KiB; scaled down to 1 MP \(scaledPeak / 1024) KiB")
        // The output is 3 MB of the full decode's 72 MB.
        #expect(scaledPeak <= fullPeak / 8, "scale-down peak \(scaledPeak) bytes vs full \(fullPeak) bytes")
    }
}
