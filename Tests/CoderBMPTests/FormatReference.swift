import Foundation
import ImageKernelTestSupport

/// A BMP, ICO or CUR row of REFERENCE-FORMATS.tsv (Pillow 13's decode, RGBA hashed).
struct FormatReference: Sendable, CustomStringConvertible {
    var path: String
    var isError: Bool
    var width = 0
    var height = 0
    var sha256 = ""
    var note = ""

    var description: String { path }

    /// `bmpsuite-correct=<png>:sha256=<hex>` targets in the note: BMP Suite's correct display, RGB
    /// zeroed where alpha is 0 (several for the cut RLE files: index 0, transparent, black).
    var correctDisplayHashes: [String] {
        note.split(separator: ",").compactMap { token in
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

    static let all: [FormatReference] = {
        guard let text = try? String(contentsOf: TestData.url("REFERENCE-FORMATS.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line -> FormatReference? in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 9, !f[0].hasPrefix("#") else { return nil }
            let path = f[0]
            guard ["bmp/", "ico/", "broken/bmp/", "broken/ico/"].contains(where: { path.hasPrefix($0) }) else { return nil }
            let isError = f[2] == "-"
            return FormatReference(
                path: path, isError: isError, width: Int(f[2]) ?? 0, height: Int(f[3]) ?? 0, sha256: f[5], note: f[8])
        }
    }()
}
