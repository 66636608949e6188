import CoderPNG
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

@Suite("PngSuite and libpng's test images against Pillow's reference hashes")
struct PngSuiteReferenceTests {
    let coder = PNGCoder()

    @Test func referenceTableListsTheCorpus() {
        #expect(ReferenceTable.validPNGs.count >= 250)
        #expect(ReferenceTable.validPNGs.filter { $0.path.hasPrefix("pngsuite/") }.count >= 160)
        #expect(ReferenceTable.corruptPngSuite.count == 14)
        #expect(ReferenceTable.corruptPngSuite.contains("pngsuite/xcsn0g01.png"))
    }

    @Test("every valid file decodes to the reference RGBA8 pixels", arguments: ReferenceTable.exactPNGs)
    func decodesToReferencePixels(_ row: ReferenceRow) throws {
        let image = try coder.decode(TestData.data(row.path), options: DecodeOptions())
        #expect(image.width == row.width)
        #expect(image.height == row.height)
        #expect(image.sourceFormat == .png)
        #expect(!image.isPreview)
        #expect(rgba8SHA256(image) == row.expectedRGBA8)
    }

    @Test("16-bit decode keeps host-order samples whose high bytes match the reference", arguments: ReferenceTable.exactPNGs)
    func preserved16BitHighBytesMatchReference(_ row: ReferenceRow) throws {
        let image = try coder.decode(TestData.data(row.path), options: DecodeOptions(preserve16Bit: true))
        #expect(rgba8SHA256(image) == row.expectedRGBA8)
    }

    @Test("every corrupt PngSuite file (x*.png) gives a typed error", arguments: ReferenceTable.corruptPngSuite)
    func corruptFileThrowsTypedError(_ path: String) throws {
        let data = try TestData.data(path)
        let error = kernelError { () throws(ImageKernelError) in try coder.decode(data, options: DecodeOptions()) }
        let thrown = try #require(error)
        #expect(thrown.stage == .decode)
        #expect(thrown.plugin == "CoderPNG")
        #expect([.corruptData, .truncated].contains(thrown.code))
        #expect(thrown.message.hasPrefix("libpng: "))
    }

    @Test func badDataChecksumOfXcsn0g01IsRefused() throws {
        let data = try TestData.data("pngsuite/xcsn0g01.png")
        #expect(coder.canDecode(data))
        let error = kernelError { () throws(ImageKernelError) in try coder.decode(data, options: DecodeOptions()) }
        #expect(error?.code == .corruptData)
        #expect(error?.message.lowercased().contains("crc") == true)
    }
}
