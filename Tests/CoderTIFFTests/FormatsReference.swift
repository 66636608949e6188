import Foundation
import ImageKernelTestSupport

/// A TIFF row of `Tests/Corpora/REFERENCE-FORMATS.tsv` (see the corpus README, "TIFF, BMP, ICO,
/// JPEG XL, SVG"): Pillow 13's decode of page 0 as 8-bit RGBA, or an `ERROR` row.
struct FormatsReference: Sendable, CustomStringConvertible {
    var path: String
    var isError: Bool
    var width = 0
    var height = 0
    var mode = ""
    var sha256 = ""
    var pageCount = 0
    var note = ""

    var description: String { path }
    var notes: [String] { note.split(separator: ",").map(String.init) }

    /// The value of a `key=value` note token, e.g. `libtiff-rgba`.
    func token(_ key: String) -> String? {
        notes.first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    /// For an `ERROR` row whose note carries `libtiff-rgba=decodes(WxH,sha256=…)`: libtiff's
    /// TIFFRGBAImage decode (Debian's tiff2rgba), the target where Pillow cannot decode.
    var libtiffSHA256: String? {
        guard let range = note.range(of: "libtiff-rgba=decodes(") else { return nil }
        let rest = note[range.upperBound...]
        guard let hash = rest.range(of: "sha256=") else { return nil }
        return String(rest[hash.upperBound...].prefix(64))
    }

    /// The TIFF rows (`tiff/` and `broken/tiff/`).
    static let tiffRows: [FormatsReference] = {
        guard let text = try? String(contentsOf: TestData.url("REFERENCE-FORMATS.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line -> FormatsReference? in
            guard !line.hasPrefix("#") else { return nil }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 9, fields[0].hasPrefix("tiff/") || fields[0].hasPrefix("broken/tiff/") else { return nil }
            var row = FormatsReference(path: fields[0], isError: fields[1] == "ERROR")
            row.note = fields[8]
            guard !row.isError else { return row }
            row.width = Int(fields[2]) ?? 0
            row.height = Int(fields[3]) ?? 0
            row.mode = fields[4]
            row.sha256 = fields[5]
            row.pageCount = Int(fields[6]) ?? 0
            return row
        }
    }()
}
