import Digests
import Foundation
import ImageKernelTestSupport
import ImageKernel

/// One row of `Tests/Corpora/REFERENCE.tsv` (Pillow's decode of every file).
struct ReferenceRow: Sendable, CustomStringConvertible {
    var path: String
    var isError: Bool
    var width: Int
    var height: Int
    var mode: String
    var sha256RGBA: String
    /// The EXIF orientation Pillow read, nil when the file has none (`-`).
    var exifOrientation: Int?

    var description: String { path }
}

enum Reference {
    /// Every row, keyed by path.
    static let rows: [ReferenceRow] = {
        guard let text = try? String(contentsOf: TestData.url("REFERENCE.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line -> ReferenceRow? in
            guard !line.hasPrefix("#") else { return nil }
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 8 else { return nil }
            if f[1] == "ERROR" {
                return ReferenceRow(path: f[0], isError: true, width: 0, height: 0, mode: "", sha256RGBA: "", exifOrientation: nil)
            }
            return ReferenceRow(
                path: f[0], isError: false, width: Int(f[2]) ?? 0, height: Int(f[3]) ?? 0, mode: f[4],
                sha256RGBA: f[5], exifOrientation: Int(f[7]))
        }
    }()

    /// Rows of JPEG files under the given folders.
    static func jpegRows(under prefixes: [String]) -> [ReferenceRow] {
        rows.filter { row in
            prefixes.contains { row.path.hasPrefix($0) } && [".jpg", ".jpeg"].contains { row.path.lowercased().hasSuffix($0) }
        }
    }

    /// The decodable JPEGs with reference hashes (non-ERROR rows under jpeg/ and exif-orientation/).
    static var decodableJPEGs: [ReferenceRow] { jpegRows(under: ["jpeg/", "exif-orientation/"]).filter { !$0.isError } }
}

/// SHA-256 of the image as 8-bit RGBA rows, the hash REFERENCE.tsv uses.
func rgbaHash(_ image: Image) -> String {
    SHA256.hash(image.rgba8Pixels()).hex
}
