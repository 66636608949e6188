import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

@Suite("Format sniffing")
struct SniffingTests {
    /// Every decodable PNG, JPEG, HEIC/HEIF and AVIF in the reference table sniffs as its format.
    @Test func realFileHeadersFromTestData() throws {
        let table = try String(contentsOf: TestData.url("REFERENCE.tsv"), encoding: .utf8)
        var checked: [String: Int] = [:]
        for line in table.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count > 2 else { continue }
            let expected: Set<ImageFormat>
            switch fields[1] {
            case "PNG": expected = [.png]
            case "JPEG": expected = [.jpeg]
            case "AVIF": expected = [.avif]
            case "HEIF": expected = [.heic, .heif]
            default: continue
            }
            let head = try FileHandle(forReadingFrom: TestData.url(fields[0])).read(upToCount: 64) ?? Data()
            let sniffed = ImageFormat.sniff(head)
            #expect(expected.contains(sniffed), "\(fields[0]) sniffed as \(sniffed)")
            checked[fields[1], default: 0] += 1
        }
        #expect(checked["PNG", default: 0] > 100 && checked["JPEG", default: 0] > 30)
        #expect(checked["AVIF", default: 0] > 10 && checked["HEIF", default: 0] > 10)
        #expect(ImageFormat.sniff(try TestData.data("heif/libheif/example.heic")) == .heic)
    }

    /// Every JPEG XL of REFERENCE-FORMATS.tsv sniffs as JPEG XL, codestream and container alike.
    @Test func jpegXLFilesOfBothFormsSniff() throws {
        let rows = TestData.formatsReference(under: ["jxl/"])
        var containers = 0
        for row in rows {
            let head = try FileHandle(forReadingFrom: TestData.url(row.path)).read(upToCount: 16) ?? Data()
            #expect(ImageFormat.sniff(head) == .jxl, "\(row.path)")
            if head.first == 0 { containers += 1 }
        }
        #expect(rows.count == 25 && containers > 5 && containers < rows.count)
        #expect(ImageFormat(fileExtension: "JXL") == .jxl && ImageFormat.jxl.fileExtension == "jxl")
    }

    /// Formats the corpus has no files of, from their documented signatures.
    @Test(arguments: [
        (ImageFormat.gif, Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0]),
        (.gif, Array("GIF87a".utf8) + [1, 0, 1, 0]),
        (.webp, Array("RIFF".utf8) + [26, 0, 0, 0] + Array("WEBPVP8 ".utf8)),
        (.tiff, [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]),
        (.tiff, [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]),
        (.tiff, [0x49, 0x49, 0x2B, 0x00, 8, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0]),
        (.tiff, [0x4D, 0x4D, 0x00, 0x2B, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16]),
        (.bmp, Array("BM".utf8) + [0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0, 0x28, 0]),
        (.pdf, Array("%PDF-1.7\n".utf8)),
        (.ico, [0, 0, 1, 0, 1, 0, 16, 16, 0, 0]),
        (.svg, Array("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)),
        (.svg, Array("\u{FEFF}  <svg width=\"1\" height=\"1\"></svg>".utf8)),
        (.jxl, [0xFF, 0x0A, 0xFA, 0x7F, 0x01, 0x90, 0x08]),
        (.jxl, [0x00, 0x00, 0x00, 0x0C] + Array("JXL ".utf8) + [0x0D, 0x0A, 0x87, 0x0A, 0, 0, 0, 0x14] + Array("ftypjxl ".utf8)),
        (.heif, [0, 0, 0, 16] + Array("ftypmif1".utf8) + [0, 0, 0, 0]),
        (.heic, [0, 0, 0, 20] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1".utf8)),
        (.avif, [0, 0, 0, 24] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("mif1miaf".utf8)),
    ] as [(ImageFormat, [UInt8])])
    func signatures(format: ImageFormat, bytes: [UInt8]) {
        #expect(ImageFormat.sniff(bytes) == format)
        #expect(ImageFormat.sniff(Data(bytes)) == format)
    }

    /// SVG by its document element after the XML prolog, never by a `<svg` further in.
    @Test(arguments: [
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n<!-- Generator: x -->\n<svg version=\"1.1\">",
        "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n<svg>",
        "<?xml version=\"1.0\"?><!DOCTYPE svg [<!ENTITY a \"<svg>]>\"><!-- ] > --><!ENTITY b 'x'>]><svg/>",
        "\u{FEFF}<?xml version=\"1.0\"?>\r\n<svg\twidth=\"1\"/>",
        "<!--" + String(repeating: "a long comment ", count: 500) + "-->\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
        "<svg:svg xmlns:svg=\"http://www.w3.org/2000/svg\"/>",
    ])
    func svgAfterProlog(_ text: String) {
        #expect(ImageFormat.sniff(Array(text.utf8)) == .svg)
    }

    @Test(arguments: [
        "<html><body><svg width=\"1\" height=\"1\"></svg></body></html>",
        "<?xml version=\"1.0\"?><svgfoo/>",
        "<?xml version=\"1.0\"?><!-- <svg> in a comment that never ends",
        "<?xml version=\"1.0\"?>\n<!-- a comment -->",
        "hello <svg>",
        "<svg",
    ])
    func notSVG(_ text: String) {
        #expect(ImageFormat.sniff(Array(text.utf8)) != .svg)
    }

    @Test func nonImagesAreUnknown() {
        #expect(ImageFormat.sniff([UInt8]()) == .unknown)
        #expect(ImageFormat.sniff([0x89, 0x50]) == .unknown, "a truncated PNG signature")
        #expect(ImageFormat.sniff(Array("<html><body>hi</body></html>".utf8)) == .unknown)
        #expect(ImageFormat.sniff(Array("hello world".utf8)) == .unknown)
        #expect(ImageFormat.sniff([0, 0, 0, 16] + Array("ftypisom".utf8) + [0, 0, 0, 0]) == .unknown, "an MP4 is not an image")
        #expect(ImageFormat.sniff([0xFF]) == .unknown, "half a JPEG XL codestream signature")
        #expect(ImageFormat.sniff([0, 0, 0, 0x0C] + Array("JXL ".utf8) + [0x0D, 0x0A]) == .unknown, "a truncated JPEG XL signature box")
    }
}
