import Foundation
import ImageKernelTestSupport

/// A TIFF row of `Tests/Corpora/REFERENCE-FORMATS.tsv` (see the corpus README, "TIFF, BMP, ICO,
/// JPEG XL, SVG"): Pillow 13's decode of page 0 as 8-bit RGBA, or an `ERROR` row.
typealias FormatsReference = FormatsReferenceRow

extension FormatsReferenceRow {
    /// For an `ERROR` row whose note carries `libtiff-rgba=decodes(WxH,sha256=…)`: libtiff's
    /// TIFFRGBAImage decode (Debian's tiff2rgba), the target where Pillow cannot decode.
    var libtiffSHA256: String? {
        guard let range = note.range(of: "libtiff-rgba=decodes(") else { return nil }
        let rest = note[range.upperBound...]
        guard let hash = rest.range(of: "sha256=") else { return nil }
        return String(rest[hash.upperBound...].prefix(64))
    }

    /// The TIFF rows (`tiff/` and `broken/tiff/`).
    static let tiffRows: [FormatsReferenceRow] = TestData.formatsReference(under: ["tiff/", "broken/tiff/"])
}
