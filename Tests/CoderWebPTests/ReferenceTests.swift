import AnimationReference
import CoderWebP
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// Every WebP row of REFERENCE-ANIM.tsv (Pillow 13 with libwebp 1.6.0's `WebPAnimDecoder`),
/// decoded by Debian's libwebp 1.2.4 through `WebPCoder`.
@Suite("WebP against REFERENCE-ANIM.tsv")
struct ReferenceTests {
    static let rows = AnimReference.rows(withExtension: "webp")

    /// Where the right answer is not Pillow's, per file, and why.
    static let libwebpFrame0: [String: String] = [
        // VP8L whose alpha_is_used hint is 0 with out-of-range palette indices: the lossless
        // spec (and libwebp, dwebp, libwebp_tests.md5) give (0,0,0,0); Pillow opens the file as
        // RGB and forces alpha to 255. The hash is libwebp's, from broken/webp/SOURCE.txt.
        "broken/webp/libwebp-test-data/bad_palette_index.webp": "13931696597e2ec64a6041d6c92d703e433e8e2be3f78ce91bd8e7fc07fefcdd",
    ]

    @Test func tableHasEveryWebP() {
        #expect(Self.rows.count == 149, "144 stills and 5 animations in webp/ and broken/webp/")
        #expect(Self.rows.allSatisfy { !$0.isError })
    }

    @Test("decodes as the reference says", arguments: rows)
    func matchesReference(_ row: AnimReference) throws {
        let image = try WebPCoder().decode(try TestData.data(row.path), options: DecodeOptions())
        #expect(image.sourceFormat == .webp)
        #expect(image.width == row.width && image.height == row.height)
        #expect(image.frameCount == row.frameCount)
        #expect(image.allFrames.map { Int(($0.duration * 1000).rounded()) } == row.durationsMs)
        // The table writes `-` for stills (Pillow itself says 1, libwebp's demuxer default).
        #expect(image.loopCount == (row.frameCount > 1 ? row.loop : nil))
        #expect(image.allFrames.allSatisfy { $0.image.width == row.width && $0.image.height == row.height })
        if let expected = Self.libwebpFrame0[row.path] {
            #expect(sha256Hex(rgba8(image)) == expected)
            return
        }
        #expect(sha256Hex(rgba8(image)) == row.frame0SHA256)
        #expect(allFramesHash(image) == row.framesSHA256)
    }
}
