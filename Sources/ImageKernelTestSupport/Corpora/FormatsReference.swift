import Foundation

/// One row of `REFERENCE-FORMATS.tsv` (the TIFF, BMP, ICO, JPEG XL and SVG corpora; see
/// `Tests/Corpora/README.md`): the reference decoder's 8-bit RGBA hash of one image, or an
/// `ERROR` row whose note says why the reference refused the file.
public struct FormatsReferenceRow: Sendable, CustomStringConvertible {
    public var path: String
    public var isError: Bool
    public var width = 0
    public var height = 0
    /// The reference decoder's mode (`RGB`, `RGBA`, `L`, …).
    public var mode = ""
    /// SHA-256 of the image as 8-bit RGBA, rows top to bottom, no padding.
    public var sha256 = ""
    /// Pages, frames or ICO entries in the file.
    public var pageCount = 0
    /// Comma-separated tokens (`key=value` or flags).
    public var note = ""

    public var description: String { path }
    /// The note's tokens.
    public var notes: [String] { note.split(separator: ",").map(String.init) }

    /// The value of a `key=value` note token.
    public func token(_ key: String) -> String? {
        notes.first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }
}

extension TestData {
    /// The rows of `REFERENCE-FORMATS.tsv` whose path starts with one of `prefixes`
    /// (`["tiff/", "broken/tiff/"]`); empty when the table cannot be read.
    public static func formatsReference(under prefixes: [String]) -> [FormatsReferenceRow] {
        guard let text = try? String(contentsOf: url("REFERENCE-FORMATS.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line -> FormatsReferenceRow? in
            guard !line.hasPrefix("#") else { return nil }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 9, prefixes.contains(where: { fields[0].hasPrefix($0) }) else { return nil }
            var row = FormatsReferenceRow(path: fields[0], isError: fields[1] == "ERROR")
            row.note = fields[8]
            guard !row.isError else { return row }
            row.width = Int(fields[2]) ?? 0
            row.height = Int(fields[3]) ?? 0
            row.mode = fields[4]
            row.sha256 = fields[5]
            row.pageCount = Int(fields[6]) ?? 0
            return row
        }
    }
}

extension TestData {
    /// The `count` smallest of the corpus files at `paths` (ties by path), for tests that feed
    /// every prefix of a file; unreadable paths are left out.
    public static func smallestFiles(_ paths: [String], count: Int = 10) -> [String] {
        let sized = paths.compactMap { path -> (String, Int)? in
            guard let data = try? data(path) else { return nil }
            return (path, data.count)
        }
        return sized.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(count).map(\.0)
    }
}
