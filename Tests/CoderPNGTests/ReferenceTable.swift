import Foundation
import ImageKernelTestSupport
import Testing

/// One row of `Tests/Corpora/REFERENCE.tsv` (Pillow's decode of every corpus file).
struct ReferenceRow: Sendable, CustomTestStringConvertible {
    let path: String
    /// Nil for an `ERROR` row (Pillow refused the file).
    let width: Int?
    let height: Int?
    let mode: String
    /// The expected SHA-256 of the pixels as RGBA8: `sha256_rgba_hb16` for 16-bit gray, else `sha256_rgba`.
    let expectedRGBA8: String?

    var isError: Bool { expectedRGBA8 == nil }
    var testDescription: String { path }
}

enum ReferenceTable {
    /// Every row, by path. Comment lines (`#`) are skipped.
    static let rows: [String: ReferenceRow] = {
        guard let text = try? String(contentsOf: TestData.url("REFERENCE.tsv"), encoding: .utf8) else { return [:] }
        var rows: [String: ReferenceRow] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 2 else { continue }
            if fields[1] == "ERROR" {
                rows[fields[0]] = ReferenceRow(path: fields[0], width: nil, height: nil, mode: "", expectedRGBA8: nil)
            } else if fields.count >= 10 {
                let hash = fields[9] != "-" ? fields[9] : fields[5]
                rows[fields[0]] = ReferenceRow(
                    path: fields[0], width: Int(fields[2]), height: Int(fields[3]), mode: fields[4], expectedRGBA8: hash)
            }
        }
        return rows
    }()

    /// PngSuite's corrupt files: the 14 `x*.png` at the top level.
    static let corruptPngSuite: [String] = rows.keys
        .filter { $0.hasPrefix("pngsuite/x") && $0.hasSuffix(".png") }
        .sorted()

    /// Valid PngSuite and png-extra files with a reference hash. `xcsn0g01.png` is excluded:
    /// Pillow ignores its bad IDAT checksum, libpng (rightly) refuses it.
    static let validPNGs: [ReferenceRow] = rows.values
        .filter { ($0.path.hasPrefix("pngsuite/") || $0.path.hasPrefix("png-extra/")) && $0.path.hasSuffix(".png") }
        .filter { !$0.isError && !corruptPngSuite.contains($0.path) }
        .sorted { $0.path < $1.path }

    /// Gray PNGs of 1, 2 or 4 bits with a tRNS chunk, whose reference Pillow computed wrongly
    /// (see `PillowQuirkTests`).
    static let lowBitGrayWithTRNS: [ReferenceRow] = validPNGs.filter { row in
        guard row.mode == "L", let data = try? TestData.data(row.path) else { return false }
        let chunks = PNGChunks(data)
        return chunks.bitDepth < 8 && chunks.colorType == 0 && chunks.chunk("tRNS") != nil
    }

    /// The valid files whose reference hash is a correct decode.
    static let exactPNGs: [ReferenceRow] = validPNGs.filter { row in
        !lowBitGrayWithTRNS.contains { $0.path == row.path }
    }

    /// Every PNG under `broken/png`.
    static let brokenPNGs: [String] = rows.keys
        .filter { $0.hasPrefix("broken/png/") && $0.hasSuffix(".png") }
        .sorted()
}
