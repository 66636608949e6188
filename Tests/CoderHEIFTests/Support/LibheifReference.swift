import Digests
import Foundation
import ImageKernel
import ImageKernelTestSupport

/// One row of `Tests/Corpora/REFERENCE-LIBHEIF.tsv`: libheif 1.15's own decode (primary
/// image, transformations applied, 8-bit RGBA) of every HEIF file, or the error it gave.
struct LibheifRow: Sendable, CustomStringConvertible {
    var path: String
    var isError: Bool
    var width: Int
    var height: Int
    var hasAlpha: Bool
    var lumaBits: Int
    var sha256RGBA: String
    var description: String { path }
}

enum LibheifReference {
    static let rows: [LibheifRow] = {
        guard let text = try? String(contentsOf: TestData.url("REFERENCE-LIBHEIF.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line -> LibheifRow? in
            guard !line.hasPrefix("#") else { return nil }
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 2 else { return nil }
            if f[1] == "ERROR" {
                return LibheifRow(path: f[0], isError: true, width: 0, height: 0, hasAlpha: false, lumaBits: 0, sha256RGBA: "")
            }
            guard f.count >= 7 else { return nil }
            return LibheifRow(
                path: f[0], isError: false, width: Int(f[2]) ?? 0, height: Int(f[3]) ?? 0, hasAlpha: f[4] == "1",
                lumaBits: Int(f[5]) ?? 0, sha256RGBA: f[6])
        }
    }()

    static var decodable: [LibheifRow] { rows.filter { !$0.isError } }
    static var errors: [LibheifRow] { rows.filter(\.isError) }
}

/// SHA-256 of the image as 8-bit RGBA rows, the hash the reference tables use.
func rgbaHash(_ image: Image) -> String {
    SHA256.hash(image.rgba8Pixels()).hex
}
