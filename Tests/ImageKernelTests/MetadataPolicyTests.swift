import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("Metadata policy: what an encoder writes of EXIF, XMP and IPTC")
struct MetadataPolicyTests {
    static let orders = [false, true]

    @Test("each policy keeps exactly its share, in both byte orders", arguments: MetadataPolicy.allCases, orders)
    func policies(_ policy: MetadataPolicy, bigEndian: Bool) {
        for orientation in [ExifOrientation.up, .right] {
            let written = MetadataFixture.metadata(bigEndian: bigEndian).written(by: policy, orientation: orientation)
            let serialized = Data((written.exif ?? []) + (written.xmp ?? []) + (written.iptc ?? []))
            let problems = MetadataFixture.problems(readBack: written, file: serialized, policy: policy, orientation: orientation, kinds: .all)
            #expect(problems.isEmpty, "\(policy) at \(orientation): \(problems)")
        }
    }

    @Test("all keeps the EXIF bytes and rewrites only the orientation value in place")
    func allPatchesOrientationInPlace() throws {
        let source = MetadataFixture.exif(orientation: 6)
        let written = try #require(ImageMetadata(exif: source).written(by: .all, orientation: .up).exif)
        #expect(written.count == source.count)
        #expect(zip(written, source).filter { $0 != $1 }.count == 1, "only the orientation's low byte changes (6 → 1)")
        #expect(try EXIFBlock(bytes: written).unsigned(EXIFBlock.Tag.orientation, in: .ifd0) == 1)
    }

    @Test("an unapplied orientation survives every policy; an applied one leaves no EXIF under none")
    func orientationAlone() throws {
        #expect(ImageMetadata().written(by: .none, orientation: .up).isEmpty)
        let exif = try #require(ImageMetadata().written(by: .none, orientation: .left).exif)
        let block = try EXIFBlock(bytes: exif)
        #expect(block.unsigned(EXIFBlock.Tag.orientation, in: .ifd0) == ExifOrientation.left.rawValue)
        #expect(block.directories[.ifd0]?.count == 1)
    }

    @Test("a block without an Orientation tag gets one by being rewritten")
    func addsOrientationByRewriting() throws {
        let minimal = try #require(EXIFBlock.minimal(orientation: .up, entries: [
            EXIFBlock.Entry(tag: EXIFBlock.Tag.artist, type: 2, count: 4, value: Array("Ada\0".utf8)),
        ]))
        let rewritten = try #require(ImageMetadata(exif: minimal).written(by: .all, orientation: .down).exif)
        let block = try EXIFBlock(bytes: rewritten)
        #expect(block.unsigned(EXIFBlock.Tag.orientation, in: .ifd0) == 3)
        #expect(block.string(EXIFBlock.Tag.artist, in: .ifd0) == "Ada")
        #expect(block.directories[.ifd1] == nil)
    }

    @Test("XMP copyright becomes a minimal packet; attributes turn into elements")
    func xmpCopyright() throws {
        let packet = try #require(ImageMetadata(xmp: MetadataFixture.xmp).written(by: .copyright, orientation: .up).xmp)
        let text = String(decoding: packet, as: UTF8.self)
        #expect(text.contains("<xmpRights:Marked>True</xmpRights:Marked>"))
        #expect(text.hasPrefix("<?xpacket begin=") && text.hasSuffix("<?xpacket end=\"w\"?>"))
        #expect(ImageMetadata(xmp: Array("<x:xmpmeta><rdf:Description dc:format='image/jpeg'/></x:xmpmeta>".utf8))
            .written(by: .copyright, orientation: .up).xmp == nil, "nothing to keep: no packet")
    }

    // MARK: Hostile EXIF

    /// A little-endian block: header, then `body` from offset 8.
    private func block(_ body: [UInt8], ifd0: UInt32 = 8) -> [UInt8] {
        [0x49, 0x49, 42, 0] + le32(ifd0) + body
    }
    private func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    private func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
    private func entry(_ tag: Int, _ type: Int, _ count: UInt32, _ value: UInt32) -> [UInt8] {
        le16(tag) + le16(type) + le32(count) + le32(value)
    }

    @Test("hostile EXIF throws corruptData and is dropped by every policy, never a crash")
    func hostileExif() {
        let cases: [(String, [UInt8])] = [
            ("truncated header", [0x49, 0x49, 42]),
            ("no byte-order mark", [0x41, 0x41, 42, 0, 8, 0, 0, 0, 0, 0]),
            ("IFD0 past the end", block([], ifd0: 0xFFFF_FFF0)),
            ("IFD0 inside the header", block([0, 0, 0, 0, 0, 0], ifd0: 2)),
            ("entry count past the end", block(le16(0xFFFF) + entry(0x0112, 3, 1, 6))),
            ("value count lies", block(le16(1) + entry(0x013B, 2, 0xFFFF_FFFF, 8) + le32(0))),
            ("value offset lies", block(le16(1) + entry(0x013B, 2, 100, 0xFFFF_FF00) + le32(0))),
            ("the EXIF IFD loops to itself", block(le16(1) + entry(0x8769, 4, 1, 26) + le32(0) + le16(1) + entry(0xA005, 4, 1, 26) + le32(0))),
            ("EXIF IFD points at IFD0", block(le16(1) + entry(0x8769, 4, 1, 8) + le32(0))),
            ("GPS pointer of the wrong type", block(le16(1) + entry(0x8825, 2, 8, 8) + le32(0))),
            ("entries share value bytes beyond the block's size",
             block(le16(40) + (0..<40).flatMap { _ in entry(0x013B, 2, 400, 8) } + le32(0) + [UInt8](repeating: 0x41, count: 400))),
        ]
        for (name, bytes) in cases {
            #expect(throws: ImageKernelError.self, "\(name)") { try EXIFBlock(bytes: bytes) }
            do {
                _ = try EXIFBlock(bytes: bytes)
            } catch {
                #expect(error.code == .corruptData, "\(name)")
            }
            for policy in MetadataPolicy.allCases {
                let written = ImageMetadata(exif: bytes).written(by: policy, orientation: .up)
                #expect(written.exif == nil, "\(name) under \(policy)")
            }
        }
    }

    @Test("a broken IFD1 pointer or a loop through it drops IFD1 only")
    func brokenIFD1() throws {
        for next: UInt32 in [8, 0xFFFF_0000] {
            let bytes = block(le16(1) + entry(0x0112, 3, 1, 6) + le32(next))
            let parsed = try EXIFBlock(bytes: bytes)
            #expect(parsed.unsigned(EXIFBlock.Tag.orientation, in: .ifd0) == 6 && parsed.directories[.ifd1] == nil)
            #expect(ImageMetadata(exif: bytes).written(by: .all, orientation: .up).exif != nil)
        }
    }

    @Test("an XMP packet that repeats tiff:Orientation many times is rewritten in one pass")
    func repeatedXMPOrientation() throws {
        let packet = Array(String(repeating: "<a tiff:Orientation=\"6\"/>", count: 20_000).utf8)
        let written = try #require(ImageMetadata(xmp: packet).written(by: .all, orientation: .up).xmp)
        #expect(written == Array(String(repeating: "<a tiff:Orientation=\"1\"/>", count: 20_000).utf8))
    }

    @Test("malformed IPTC is dropped; zero padding is not malformed")
    func hostileIPTC() {
        let good = MetadataFixture.iptc
        #expect(ImageMetadata(iptc: good + [0, 0, 0]).written(by: .all, orientation: .up).iptc == good)
        for bad in [Array(good.dropLast(3)), good + [0x1C, 2, 5, 0x80, 0x09], good + [0x1C, 2, 5, 0xFF, 0xFF, 1], [0x55] + good] {
            #expect(ImageMetadata(iptc: bad).written(by: .all, orientation: .up).iptc == nil)
            #expect(ImageMetadata(iptc: bad).written(by: .copyright, orientation: .up).iptc == nil)
        }
    }
}
