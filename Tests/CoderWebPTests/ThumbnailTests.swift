import AnimationReference
import CoderWebP
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("WebP thumbnails")
struct ThumbnailTests {
    let coder = WebPCoder()

    @Test func stillThumbnailIsLibwebpScaledToTheKernelSize() throws {
        let data = try TestData.data("webp/libwebp-test-data/test.webp")  // 128x128
        let full = try coder.decode(data, options: DecodeOptions())
        let small = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 40)))
        #expect(PixelSize(width: small.width, height: small.height) == PixelSize.thumbnail(of: PixelSize(width: full.width, height: full.height), fitting: PixelSize(width: 50, height: 40)))
        // Scaled, not cropped: the mean colour stays close to the full image's.
        func mean(_ image: Image) -> [Double] {
            let rgba = image.rgba8Pixels()
            return (0..<3).map { c in stride(from: c, to: rgba.count, by: 4).reduce(0.0) { $0 + Double(rgba[$1]) } / Double(rgba.count / 4) }
        }
        for (a, b) in zip(mean(full), mean(small)) { #expect(abs(a - b) < 4) }
    }

    @Test func animatedThumbnailScalesEveryFrame() throws {
        let data = try TestData.data("webp/generated/anim_lossless_alpha.webp")  // 200x150, 6 frames
        let image = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100)))
        #expect(image.frameCount == 6)
        #expect(image.allFrames.allSatisfy { $0.image.width == 100 && $0.image.height == 75 })
        #expect(image.loopCount == 3)
    }

    /// The thumbnail claim, measured on bryce.webp (lossy, 11158x2156: 72 MB of RGB): libwebp's
    /// scaler consumes rows as they are decoded, so the canvas never exists.
    @Test(
        "a scaled decode of a 24-megapixel lossy WebP peaks far below the full decode's memory",
        .disabled(if: MemoryProbe.underSanitizer, "resident-set figures are meaningless under a sanitizer"))
    func webpThumbnailPeakMemoryIsFarBelowFullDecode() throws {
        let data = try TestData.data("webp/libwebp-test-data/bryce.webp")
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
        var thumbnailPeaks: [Int] = []
        for _ in 0..<3 {
            let (thumbnail, bytes) = try MemoryProbe.peakGrowth { try coder.decode(data, options: options) }
            #expect(thumbnail.width == 256 && thumbnail.height == 49)
            thumbnailPeaks.append(bytes)
        }
        let (full, fullPeak) = try MemoryProbe.peakGrowth { try coder.decode(data, options: DecodeOptions()) }
        let fullPixelBytes = 11158 * 2156 * 3
        #expect(full.pixels.count == fullPixelBytes)
        let thumbnailPeak = thumbnailPeaks.sorted()[1]
        print("CoderWebP memory: full decode peak RSS growth \(fullPeak / 1024) KiB; 256px thumbnail \(thumbnailPeaks.map { $0 / 1024 }) KiB (median \(thumbnailPeak / 1024) KiB)")
        #expect(fullPeak >= fullPixelBytes * 9 / 10, "the probe saw only \(fullPeak) bytes for a \(fullPixelBytes)-byte decode")
        #expect(thumbnailPeak <= fullPeak / 16, "thumbnail peak \(thumbnailPeak) bytes vs full \(fullPeak) bytes")
    }
}
