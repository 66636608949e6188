import Foundation
import ImageKernel

/// The metadata of a photo as a phone or camera writes it, built byte by byte (independently of
/// the kernel's EXIF writer) for the metadata-policy tests of every coder, the CLI and the proxy:
/// EXIF with Orientation, Make, Artist and Copyright in IFD0, a date and a maker note in the EXIF
/// IFD, a GPS IFD and an IFD1; an XMP packet with rights, creator, a GPS position and an
/// orientation; IPTC records with by-line, copyright notice and a city.
public enum MetadataFixture {
    public static let artist = "Ada Example"
    public static let copyright = "(c) 2026 Example Press"
    public static let make = "FixtureCam"
    /// Text that only the GPS parts carry (the XMP latitude, the IPTC city is separate).
    public static let xmpGPSLatitude = "38,42.7380N"
    public static let city = "Lisbon"
    /// The GPS latitude's three RATIONALs (38/1, 42/1, 4428/100), as they sit in the EXIF
    /// block in big- or little-endian order: their absence in an output's bytes shows that no
    /// GPS position left, whatever a reader thinks of the structure around it.
    public static func gpsLatitudeBytes(bigEndian: Bool) -> [UInt8] {
        [38, 1, 42, 1, 4428, 100].flatMap { u32($0, bigEndian) }
    }

    /// The EXIF block (TIFF structure, no `Exif\0\0`).
    public static func exif(orientation: Int = 6, bigEndian: Bool = false) -> [UInt8] {
        typealias Field = (tag: Int, type: Int, count: Int, value: [UInt8])
        func ascii(_ tag: Int, _ text: String) -> Field { (tag, 2, text.utf8.count + 1, Array(text.utf8) + [0]) }
        func short(_ tag: Int, _ value: Int) -> Field { (tag, 3, 1, u16(value, bigEndian)) }
        func long(_ tag: Int, _ value: Int) -> Field { (tag, 4, 1, u32(value, bigEndian)) }
        // Layout: header, IFD0, EXIF IFD, GPS IFD, IFD1, each followed by its values.
        func size(_ fields: [Field]) -> Int {
            2 + fields.count * 12 + 4 + fields.reduce(0) { $0 + ($1.value.count > 4 ? ($1.value.count + 1) & ~1 : 0) }
        }
        let exifIFD: [Field] = [ascii(0x9003, "2026:11:27 01:23:45"), (0x927C, 7, 16, Array("FIXTURE-MAKERNOT".utf8))]
        let gpsIFD: [Field] = [(0x0000, 1, 4, [2, 3, 0, 0]), ascii(0x0001, "N"), (0x0002, 5, 3, gpsLatitudeBytes(bigEndian: bigEndian))]
        let ifd1: [Field] = [short(0x0103, 6)]
        let ifd0Base: [Field] = [ascii(0x010F, make), short(0x0112, orientation), ascii(0x013B, artist), ascii(0x8298, copyright)]
        let ifd0Size = size(ifd0Base + [long(0x8769, 0), long(0x8825, 0)])
        let exifAt = 8 + ifd0Size
        let gpsAt = exifAt + size(exifIFD)
        let ifd1At = gpsAt + size(gpsIFD)
        let ifd0 = ifd0Base + [long(0x8769, exifAt), long(0x8825, gpsAt)]
        var out: [UInt8] = bigEndian ? [0x4D, 0x4D, 0, 42] : [0x49, 0x49, 42, 0]
        out += u32(8, bigEndian)
        for (fields, next) in [(ifd0, ifd1At), (exifIFD, 0), (gpsIFD, 0), (ifd1, 0)] {
            var valueAt = out.count + 2 + fields.count * 12 + 4
            var values: [UInt8] = []
            out += u16(fields.count, bigEndian)
            for field in fields {
                out += u16(field.tag, bigEndian) + u16(field.type, bigEndian) + u32(field.count, bigEndian)
                if field.value.count > 4 {
                    out += u32(valueAt, bigEndian)
                    values += field.value + (field.value.count % 2 == 1 ? [0] : [])
                    valueAt += (field.value.count + 1) & ~1
                } else {
                    out += field.value + [UInt8](repeating: 0, count: 4 - field.value.count)
                }
            }
            out += u32(next, bigEndian) + values
        }
        return out
    }

    /// An XMP packet with rights (an attribute and elements), creator, a GPS position, a city and
    /// an orientation.
    public static let xmp: [UInt8] = Array("""
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about=""
            xmlns:dc="http://purl.org/dc/elements/1.1/"
            xmlns:xmpRights="http://ns.adobe.com/xap/1.0/rights/"
            xmlns:exif="http://ns.adobe.com/exif/1.0/"
            xmlns:tiff="http://ns.adobe.com/tiff/1.0/"
            xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
            xmpRights:Marked="True" tiff:Orientation="6" exif:GPSLatitude="\(xmpGPSLatitude)" photoshop:City="\(city)">
           <dc:rights><rdf:Alt><rdf:li xml:lang="x-default">\(copyright)</rdf:li></rdf:Alt></dc:rights>
           <dc:creator><rdf:Seq><rdf:li>\(artist)</rdf:li></rdf:Seq></dc:creator>
           <dc:description><rdf:Alt><rdf:li xml:lang="x-default">A harbour at dusk</rdf:li></rdf:Alt></dc:description>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """.utf8)

    /// IPTC-IIM records: coded character set (UTF-8), record version, by-line, copyright notice,
    /// city and a keyword.
    public static let iptc: [UInt8] = {
        func record(_ number: UInt8, _ dataset: UInt8, _ value: [UInt8]) -> [UInt8] {
            [0x1C, number, dataset, UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
        }
        return record(1, 90, [0x1B, 0x25, 0x47]) + record(2, 0, [0, 4]) + record(2, 80, Array(artist.utf8))
            + record(2, 116, Array(copyright.utf8)) + record(2, 90, Array(city.utf8)) + record(2, 25, Array("harbour".utf8))
    }()

    /// All three blocks.
    public static func metadata(orientation: Int = 6, bigEndian: Bool = false) -> ImageMetadata {
        ImageMetadata(exif: exif(orientation: orientation, bigEndian: bigEndian), xmp: xmp, iptc: iptc)
    }

    /// Whether `needle` occurs in `haystack`.
    public static func contains(_ haystack: some Collection<UInt8>, _ needle: some Collection<UInt8>) -> Bool {
        let bytes = Array(haystack)
        let pattern = Array(needle)
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return false }
        return (0...(bytes.count - pattern.count)).contains { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }
    }

    static func u16(_ value: Int, _ bigEndian: Bool) -> [UInt8] {
        let (high, low) = (UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value))
        return bigEndian ? [high, low] : [low, high]
    }

    static func u32(_ value: Int, _ bigEndian: Bool) -> [UInt8] {
        bigEndian ? u16(value >> 16, true) + u16(value, true) : u16(value, false) + u16(value >> 16, false)
    }
}
