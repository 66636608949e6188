import CoderBMP
import CoderPNG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// `DecodeOptions.framesOverLimit` on an ICO's entries (`allPages`): `keepFirst` decodes the
/// first entries only; the default still refuses.
@Suite("ICO: entries over the limit")
struct FramesOverLimitTests {
    @Test func keepFirstDecodesTheFirstEntries() throws {
        let coder = BMPCoder(pngCoder: PNGCoder())
        let data = try TestData.data("ico/pillow/pillow.ico")  // 256, 48, 32, 24 and 16, in that order
        var options = DecodeOptions(maxFrameCount: 2)
        options.allPages = true
        for keep in [1, 2, 5] { #expect(try coder.firstFramesKeptMismatch(data, keep: keep, options: options) == nil, "keep \(keep)") }
        #expect(throws: ImageKernelError.self) { try coder.decode(data, options: options) }
        options.framesOverLimit = .keepFirst
        #expect(try coder.decode(data, options: options).allFrames.map(\.image.width) == [256, 48])
        options.animationPixelLimit = 256 * 256 + 48 * 48 - 1
        #expect(throws: ImageKernelError.self) { try coder.decode(data, options: options) }
    }
}
