import Crypto
import Foundation
import ImageKernel
import TestData

/// SHA-256 (lowercase hex) of bytes.
func sha256Hex(_ bytes: [UInt8]) -> String {
    SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
}

/// One frame as REFERENCE-ANIM.tsv hashes it: 8-bit RGBA, and with `zeroingTransparentRGB` the
/// RGB of pixels whose alpha is 0 set to 0 (the `alpha0-rgb-nonzero` caveat).
func rgba8(_ image: Image, zeroingTransparentRGB: Bool = false) -> [UInt8] {
    var pixels = image.rgba8Pixels()
    if zeroingTransparentRGB {
        for index in stride(from: 0, to: pixels.count, by: 4) where pixels[index + 3] == 0 {
            pixels[index] = 0; pixels[index + 1] = 0; pixels[index + 2] = 0
        }
    }
    return pixels
}

/// The all-frames hash: SHA-256 over every frame's RGBA, concatenated in order.
func allFramesHash(_ image: Image, zeroingTransparentRGB: Bool = false) -> String {
    var hash = SHA256()
    for frame in image.allFrames { hash.update(data: rgba8(frame.image, zeroingTransparentRGB: zeroingTransparentRGB)) }
    return hash.finalize().map { String(format: "%02x", $0) }.joined()
}

/// A row of REFERENCE-ANIM.tsv.
struct AnimReference: Sendable, CustomStringConvertible {
    var path: String
    var isError: Bool
    var width = 0
    var height = 0
    var frameCount = 0
    /// nil for `-` (no NETSCAPE block / no ANIM chunk).
    var loop: Int?
    var durationsMs: [Int] = []
    var frame0SHA256 = ""
    var framesSHA256 = ""
    var note = ""

    var description: String { path }
    var notes: [String] { note.split(separator: ",").map(String.init) }

    /// Every row of the table, or an empty list when the corpus is missing.
    static let all: [AnimReference] = {
        guard let text = try? String(contentsOf: TestData.url("REFERENCE-ANIM.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line -> AnimReference? in
            guard !line.hasPrefix("#") else { return nil }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 2 else { return nil }
            var row = AnimReference(path: fields[0], isError: fields[1] == "ERROR")
            guard !row.isError, fields.count >= 9 else { return row }
            row.width = Int(fields[2]) ?? 0
            row.height = Int(fields[3]) ?? 0
            row.frameCount = Int(fields[4]) ?? 0
            row.loop = Int(fields[5])
            row.durationsMs = fields[6].split(separator: ",").compactMap { Int($0) }
            row.frame0SHA256 = fields[7]
            row.framesSHA256 = fields[8]
            row.note = fields.count > 9 ? fields[9] : ""
            return row
        }
    }()

    static func rows(withExtension ext: String) -> [AnimReference] {
        all.filter { $0.path.hasSuffix("." + ext) }
    }
}
