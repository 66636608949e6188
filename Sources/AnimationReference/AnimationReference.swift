import Digests
import Foundation
import ImageKernel
import ImageKernelTestSupport

/// Test-only support shared by CoderWebPTests and CoderGIFTests: REFERENCE-ANIM.tsv and the
/// hashes it is written in.

/// SHA-256 (lowercase hex) of bytes.
public func sha256Hex(_ bytes: [UInt8]) -> String {
    SHA256.hash(bytes).hex
}

/// One frame as REFERENCE-ANIM.tsv hashes it: 8-bit RGBA, and with `zeroingTransparentRGB` the
/// RGB of pixels whose alpha is 0 set to 0 (the `alpha0-rgb-nonzero` caveat).
public func rgba8(_ image: Image, zeroingTransparentRGB: Bool = false) -> [UInt8] {
    var pixels = image.rgba8Pixels()
    if zeroingTransparentRGB {
        for index in stride(from: 0, to: pixels.count, by: 4) where pixels[index + 3] == 0 {
            pixels[index] = 0; pixels[index + 1] = 0; pixels[index + 2] = 0
        }
    }
    return pixels
}

/// The all-frames hash: SHA-256 over every frame's RGBA, concatenated in order.
public func allFramesHash(_ image: Image, zeroingTransparentRGB: Bool = false) -> String {
    var hash = SHA256.Hasher()
    for frame in image.allFrames { hash.update(rgba8(frame.image, zeroingTransparentRGB: zeroingTransparentRGB)) }
    return hash.finalize().hex
}

/// `count` copies of `bytes`, each with four bytes at or after `start` flipped by a fixed-seed
/// generator: corrupt input for never-crash tests, the same on every run.
public func flippedVariants(of bytes: [UInt8], count: Int, seed: UInt32, from start: Int) -> [Data] {
    var state = seed
    return (0..<count).map { _ in
        var copy = bytes
        for _ in 0..<4 {
            state = state &* 1_664_525 &+ 1_013_904_223
            let index = start + Int(state >> 8) % max(1, copy.count - start)
            if index < copy.count { copy[index] ^= UInt8(truncatingIfNeeded: state >> 3) | 1 }
        }
        return Data(copy)
    }
}

/// A row of REFERENCE-ANIM.tsv.
public struct AnimReference: Sendable, CustomStringConvertible {
    public var path: String
    public var isError: Bool
    public var width = 0
    public var height = 0
    public var frameCount = 0
    /// nil for `-` (no NETSCAPE block / no ANIM chunk).
    public var loop: Int?
    public var durationsMs: [Int] = []
    public var frame0SHA256 = ""
    public var framesSHA256 = ""
    public var note = ""

    public var description: String { path }
    public var notes: [String] { note.split(separator: ",").map(String.init) }

    /// Every row of the table, or an empty list when the corpus is missing.
    public static let all: [AnimReference] = {
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

    public static func rows(withExtension ext: String) -> [AnimReference] {
        all.filter { $0.path.hasSuffix("." + ext) }
    }
}
