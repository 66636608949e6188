import CoderPNG
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

/// Pillow's reference for gray PNGs of 2 or 4 bits with tRNS is not a correct decode: Pillow
/// scales the samples to 8 bits but compares them with the *unscaled* tRNS value. Those files
/// are checked two ways: our decode, seen through Pillow's mistake, reproduces its hash exactly;
/// and our own alpha follows the PNG specification.
@Suite("Low-bit gray with tRNS, where Pillow's reference is wrong")
struct PillowQuirkTests {
    @Test func theAffectedFilesAreTheLowBitGrayOnesWithTRNS() {
        // 13 files; in two of them the tRNS value is 0, where Pillow's mistake is harmless.
        #expect(ReferenceTable.lowBitGrayWithTRNS.count == 13)
    }

    @Test(
        "Pillow's hash follows from our decode and its unscaled tRNS comparison",
        arguments: ReferenceTable.lowBitGrayWithTRNS)
    func pillowHashFollowsFromOurDecode(_ row: ReferenceRow) throws {
        let data = try TestData.data(row.path)
        let chunks = PNGChunks(data)
        let transparent = Int(try #require(chunks.chunk("tRNS")).readUInt16(at: 0))
        let image = try PNGCoder().decode(data, options: DecodeOptions())
        #expect(image.pixelFormat == .grayAlpha8)

        var pillow: [UInt8] = []
        let scale = 255 / ((1 << chunks.bitDepth) - 1)
        for i in stride(from: 0, to: image.pixels.count, by: 2) {
            let gray = image.pixels[i]
            let alpha = image.pixels[i + 1]
            pillow += [gray, gray, gray, Int(gray) == transparent ? 0 : 255]
            // The specification: transparent exactly where the sample equals the tRNS value.
            #expect((alpha == 0) == (Int(gray) == transparent * scale))
        }
        #expect(sha256Hex(pillow) == row.expectedRGBA8)
    }
}
