import Foundation
import ImageKernelTestSupport

/// A BMP, ICO or CUR row of REFERENCE-FORMATS.tsv (Pillow 13's decode, RGBA hashed).
typealias FormatReference = FormatsReferenceRow

extension FormatsReferenceRow {
    /// `bmpsuite-correct=<png>:sha256=<hex>` targets in the note: BMP Suite's correct display, RGB
    /// zeroed where alpha is 0 (several for the cut RLE files: index 0, transparent, black).
    var correctDisplayHashes: [String] {
        notes.compactMap { token in
            guard token.hasPrefix("bmpsuite-correct="), let range = token.range(of: ":sha256=") else { return nil }
            return String(token[range.upperBound...])
        }
    }

    /// `deepest-entry=...:sha256=<hex>`: the deepest ICO entry of the size Pillow picks.
    var deepestEntryHash: String? {
        guard let range = note.range(of: "deepest-entry=") else { return nil }
        let token = note[range.upperBound...].prefix { $0 != ";" && $0 != "," }
        return token.range(of: "sha256=").map { String(token[$0.upperBound...]) }
    }

    static let all: [FormatsReferenceRow] = TestData.formatsReference(under: ["bmp/", "ico/", "broken/bmp/", "broken/ico/"])
}
