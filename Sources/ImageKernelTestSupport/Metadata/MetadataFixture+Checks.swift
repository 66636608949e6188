import Foundation
import ImageKernel

extension MetadataFixture {
    /// The blocks a format can hold.
    public struct Kinds: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let exif = Kinds(rawValue: 1)
        public static let xmp = Kinds(rawValue: 2)
        public static let iptc = Kinds(rawValue: 4)
        public static let all: Kinds = [.exif, .xmp, .iptc]
    }

    /// What is wrong with an output written from ``metadata(orientation:bigEndian:)`` under
    /// `policy` for an image of orientation `orientation`: `readBack` is what the coder decoded
    /// from `file`, the output's bytes, which are also searched for text and GPS bytes that must
    /// not be there. Empty when the output is right.
    public static func problems(
        readBack: ImageMetadata, file: Data, policy: MetadataPolicy, orientation: ExifOrientation, kinds: Kinds
    ) -> [String] {
        var problems: [String] = []
        func expect(_ condition: Bool, _ problem: String) { if !condition { problems.append(problem) } }
        let text = Array(copyright.utf8)
        let gpsBytes = [gpsLatitudeBytes(bigEndian: true), gpsLatitudeBytes(bigEndian: false)]
        let exif = readBack.exif.flatMap { try? EXIFBlock(bytes: $0) }
        expect(readBack.exif == nil || exif != nil, "the EXIF block read back does not parse")
        let writtenOrientation = exif?.unsigned(EXIFBlock.Tag.orientation, in: .ifd0) ?? 1
        if kinds.contains(.exif) || orientation != .up {
            expect(writtenOrientation == orientation.rawValue, "EXIF orientation \(writtenOrientation), expected \(orientation.rawValue)")
        }
        let iptcSets = Set(iptcDataSets(readBack.iptc ?? []))
        let xmp = String(decoding: readBack.xmp ?? [], as: UTF8.self)
        switch policy {
        case .none:
            expect(!contains(file, text) && !contains(file, Array(artist.utf8)), "copyright or artist text left in the file")
            let ifd0 = Set(exif?.directories[.ifd0]?.map(\.tag) ?? [])
            expect(ifd0.isSubset(of: [EXIFBlock.Tag.orientation]) && exif?.directories.count ?? 1 == 1, "EXIF beyond the orientation: \(ifd0)")
            expect(orientation != .up || readBack.exif == nil, "an EXIF block for an upright image")
            expect(readBack.xmp == nil && readBack.iptc == nil, "XMP or IPTC written")
        case .copyright:
            if kinds.contains(.exif) {
                expect(exif?.string(EXIFBlock.Tag.copyright, in: .ifd0) == copyright, "EXIF Copyright missing")
                expect(exif?.string(EXIFBlock.Tag.artist, in: .ifd0) == artist, "EXIF Artist missing")
                let ifd0 = Set(exif?.directories[.ifd0]?.map(\.tag) ?? [])
                let allowed: Set<UInt16> = [EXIFBlock.Tag.artist, EXIFBlock.Tag.copyright, EXIFBlock.Tag.orientation]
                expect(ifd0.isSubset(of: allowed), "EXIF IFD0 keeps more than Artist and Copyright: \(ifd0.sorted())")
                expect(Set(exif?.directories.keys.map { $0 } ?? []) == [.ifd0], "EXIF keeps IFDs other than IFD0")
            }
            if kinds.contains(.xmp) {
                expect(xmp.contains("<dc:rights>") && xmp.contains(copyright), "XMP dc:rights missing")
                expect(xmp.contains("<dc:creator>") && xmp.contains(artist), "XMP dc:creator missing")
                expect(xmp.contains("xmpRights:Marked"), "XMP xmpRights:Marked missing")
                expect(!xmp.contains("dc:description") && !xmp.contains("Orientation"), "XMP keeps more than rights and creator")
            }
            if kinds.contains(.iptc) {
                expect(iptcSets.contains("2:80") && iptcSets.contains("2:116"), "IPTC by-line or copyright notice missing: \(iptcSets)")
                expect(iptcSets.isSubset(of: ["2:80", "2:116", "2:0", "1:90"]), "IPTC keeps more: \(iptcSets.sorted())")
            }
            expect(!contains(file, Array(make.utf8)), "EXIF Make left in the file")
        case .all:
            if kinds.contains(.exif) {
                expect(exif?.string(EXIFBlock.Tag.copyright, in: .ifd0) == copyright, "EXIF Copyright missing")
                expect(exif?.string(0x010F, in: .ifd0) == make, "EXIF Make missing")
                expect(exif?.directories[.gps] != nil, "EXIF GPS IFD missing")
                expect(exif?.entry(0x927C, in: .exif)?.value == Array("FIXTURE-MAKERNOT".utf8), "EXIF maker note changed")
                expect(gpsBytes.contains { contains(file, $0) }, "the GPS latitude's bytes are not in the file")
            }
            if kinds.contains(.xmp) {
                expect(xmp.contains(xmpGPSLatitude) && xmp.contains(city), "XMP GPS or city missing")
                expect(xmp.contains("tiff:Orientation=\"\(orientation.rawValue)\""), "XMP tiff:Orientation not \(orientation.rawValue)")
            }
            if kinds.contains(.iptc) {
                expect(readBack.iptc == iptc, "IPTC records changed")
            }
        }
        if policy != .all {
            expect(!gpsBytes.contains { contains(file, $0) }, "the GPS latitude's bytes are in the file")
            expect(!contains(file, Array(xmpGPSLatitude.utf8)) && !contains(file, Array(city.utf8)), "XMP GPS or IPTC city left in the file")
            expect(exif?.directories[.gps] == nil, "an EXIF GPS IFD")
        }
        return problems
    }

    /// `record:dataset` of each IPTC record, for checks.
    static func iptcDataSets(_ data: [UInt8]) -> [String] {
        var sets: [String] = []
        var offset = 0
        while offset + 5 <= data.count, data[offset] == 0x1C {
            sets.append("\(data[offset + 1]):\(data[offset + 2])")
            offset += 5 + (Int(data[offset + 3]) << 8 | Int(data[offset + 4]))
        }
        return sets
    }
}

extension MetadataFixture {
    /// Encodes a small image carrying ``metadata(orientation:bigEndian:)`` with `coder` as
    /// `format` under every policy, with its orientation (6) applied (as `OrientTransformer`
    /// leaves it) and not, decodes each output with the same coder and returns what
    /// ``problems(readBack:file:policy:orientation:kinds:)`` finds, each prefixed with the case.
    public static func roundTripProblems(coder: any ImageCoder, format: ImageFormat, kinds: Kinds) throws -> [String] {
        var found: [String] = []
        for policy in MetadataPolicy.allCases {
            for applied in [true, false] {
                var image = try Image(width: 32, height: 24, pixelFormat: .rgb8, pixels: [UInt8](repeating: 128, count: 32 * 24 * 3))
                image.metadata = metadata()
                image.orientation = applied ? .up : .right
                let file = try coder.encode(image, as: format, options: EncodeOptions(metadata: policy))
                let back = try coder.decode(file, options: DecodeOptions())
                found += problems(readBack: back.metadata, file: file, policy: policy, orientation: image.orientation, kinds: kinds)
                    .map { "\(format) \(policy), orientation applied: \(applied): \($0)" }
                if policy == .all {
                    let present: Kinds = [
                        back.metadata.exif != nil ? .exif : [], back.metadata.xmp != nil ? .xmp : [], back.metadata.iptc != nil ? .iptc : [],
                    ]
                    if present != kinds { found.append("\(format) all: read back \(present.rawValue), expected \(kinds.rawValue)") }
                }
            }
        }
        return found
    }
}
