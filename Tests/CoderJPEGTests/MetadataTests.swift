@testable import CoderJPEG
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

@Suite("EXIF orientation and ICC profile parsing")
struct MetadataTests {
    /// An APP1 payload with one IFD0 entry.
    func exif(bigEndian: Bool, tag: UInt16 = 0x0112, type: UInt16 = 3, value: UInt16, ifdOffset: UInt32 = 8) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { bigEndian ? u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF)) : u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) }
        let order: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        let entry = u16(tag) + u16(type) + u32(1) + u16(value) + [0, 0]
        return Array("Exif".utf8) + [0, 0] + order + u16(42) + u32(ifdOffset) + u16(1) + entry + u32(0)
    }

    @Test("orientation is read in both byte orders", arguments: [false, true])
    func orientationBothByteOrders(_ bigEndian: Bool) {
        for value in 1...8 {
            let metadata = JPEGMetadata(markers: [(JPEGMetadata.app1, exif(bigEndian: bigEndian, value: UInt16(value)))])
            #expect(metadata.orientation.rawValue == value)
        }
    }

    @Test("invalid or missing orientation reads as up, never as an error")
    func invalidOrientation() {
        #expect(JPEGMetadata(markers: [(0xE1, exif(bigEndian: false, value: 0))]).orientation == .up)
        #expect(JPEGMetadata(markers: [(0xE1, exif(bigEndian: false, value: 9))]).orientation == .up)
        #expect(JPEGMetadata(markers: [(0xE1, exif(bigEndian: false, tag: 0x0110, value: 6))]).orientation == .up)
        #expect(JPEGMetadata(markers: [(0xE1, exif(bigEndian: true, value: 6, ifdOffset: 60_000))]).orientation == .up)
        #expect(JPEGMetadata(markers: [(0xE1, Array(exif(bigEndian: true, value: 6).prefix(20)))]).orientation == .up)
        #expect(JPEGMetadata(markers: [(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8))]).orientation == .up)
        #expect(JPEGMetadata(markers: []).orientation == .up)
    }

    @Test("the first EXIF marker wins over a later XMP APP1")
    func xmpBeforeExif() {
        let markers = [(0xE1, Array("http://ns.adobe.com/xap/1.0/\0<x/>".utf8)), (0xE1, exif(bigEndian: true, value: 6))]
        #expect(JPEGMetadata(markers: markers).orientation == .right)
    }

    func icc(_ sequence: UInt8, of count: UInt8, _ body: [UInt8]) -> [UInt8] {
        Array("ICC_PROFILE".utf8) + [0, sequence, count] + body
    }

    @Test("ICC chunks are joined in sequence order, whatever order they arrive in")
    func iccChunksInSequenceOrder() {
        let profile = JPEGMetadata.assembleICC([icc(2, of: 3, [4, 5]), icc(1, of: 3, [1, 2, 3]), icc(3, of: 3, [6])])
        #expect(profile == [1, 2, 3, 4, 5, 6])
    }

    @Test("an exact repeat of an ICC chunk is ignored")
    func repeatedICCChunk() {
        #expect(JPEGMetadata.assembleICC([icc(1, of: 1, [7, 8]), icc(1, of: 1, [7, 8])]) == [7, 8])
    }

    @Test("inconsistent ICC chunks give no profile")
    func inconsistentICC() {
        #expect(JPEGMetadata.assembleICC([icc(1, of: 2, [1])]) == nil)  // missing
        #expect(JPEGMetadata.assembleICC([icc(1, of: 2, [1]), icc(1, of: 2, [2])]) == nil)  // conflicting
        #expect(JPEGMetadata.assembleICC([icc(1, of: 2, [1]), icc(2, of: 3, [2])]) == nil)  // counts disagree
        #expect(JPEGMetadata.assembleICC([icc(0, of: 1, [1])]) == nil)  // out of range
        #expect(JPEGMetadata.assembleICC([Array("NOT_AN_ICC".utf8)]) == nil)
    }

    @Test("files with ICC profiles carry them")
    func corpusICC() throws {
        let coder = JPEGCoder()
        let tagged = try coder.decode(TestData.data("jpeg/mozilla/jpg-srgb-icc.jpg"), options: DecodeOptions())
        let profile = try #require(tagged.iccProfile)
        #expect(profile.count > 128 && Array(profile[36..<40]) == Array("acsp".utf8))
        let afterSOF = try coder.decode(TestData.data("jpeg/pillow/icc-after-SOF.jpg"), options: DecodeOptions())
        #expect(afterSOF.iccProfile == Array("profile".utf8))  // one chunk, written before and after SOF
        #expect(try coder.decode(TestData.data("jpeg/libjpeg-turbo/testorig.jpg"), options: DecodeOptions()).iccProfile == nil)
    }
}
