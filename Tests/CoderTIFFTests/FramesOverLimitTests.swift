import CoderTIFF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// `DecodeOptions.framesOverLimit` on a multi-page TIFF: `keepFirst` reads the first pages only;
/// the default still refuses.
@Suite("TIFF: pages over the limit")
struct FramesOverLimitTests {
    @Test func keepFirstReadsTheFirstPages() throws {
        // 3 pages (10x10, 10x10, 20x20): all pages give 2 frames (the 20x20 one is skipped).
        let data = try TestData.data("tiff/pillow/multipage.tiff")
        let all = TIFFCoder(pages: .all)
        for keep in [1, 2, 3] { #expect(try all.firstFramesKeptMismatch(data, keep: keep) == nil, "keep \(keep)") }
        var options = DecodeOptions(maxFrameCount: 2, animationPixelLimit: 200)
        options.framesOverLimit = .keepFirst
        let two = try all.decode(data, options: options)
        #expect(two.frameCount == 2 && two.decoderNotes["tiff.pages.skipped"] == nil, "the third page is not read")
        #expect(throws: ImageKernelError.self) { try all.decode(data, options: DecodeOptions(maxFrameCount: 2)) }
    }
}
