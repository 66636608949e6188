import Foundation

/// Deterministic photo-like RGB8 pixels: smooth gradients and soft waves with a little sensor
/// noise, so that PNG and JPEG files come out at realistic sizes (flat test cards compress far
/// better than photos and make every codec look fast). Different seeds give different images.
public enum SyntheticPhoto {
    /// `width * height * 3` bytes, rows top to bottom, no padding.
    public static func rgb8(width: Int, height: Int, seed: UInt32 = 1) -> [UInt8] {
        // The waves are separable (a column term times a row term), so a 24 MP image costs table
        // look-ups per sample rather than sin/cos.
        let phase = Double(seed % 997) * 0.618
        let frequency = 5 + Double(seed % 7)
        var columns: [[Double]] = [], rows: [[Double]] = [], ramps: [[Double]] = []
        for c in 0..<3 {
            columns.append((0..<width).map { x in sin(Double(x) / Double(width) * (frequency + 4) + Double(c) * 1.7 + phase) })
            rows.append((0..<height).map { y in cos(Double(y) / Double(height) * frequency - Double(c) + phase) * 0.25 })
            ramps.append((0..<width).map { x in 0.35 + 0.3 * Double(x) / Double(width) * (c == 0 ? 1 : 0.5) })
        }
        var state = seed &* 2_654_435_761 &+ 12345
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        pixels.withUnsafeMutableBufferPointer { out in
            var index = 0
            for y in 0..<height {
                let fy = 0.25 * Double(y) / Double(height)
                for x in 0..<width {
                    for c in 0..<3 {
                        state = state &* 1_664_525 &+ 1_013_904_223
                        let value = ramps[c][x] + fy + columns[c][x] * rows[c][y] + Double(state >> 24) * (0.04 / 255)
                        out[index] = UInt8(min(1, max(0, value)) * 255)
                        index += 1
                    }
                }
            }
        }
        return pixels
    }
}

/// Files generated once and kept in a temporary directory between runs, keyed by name (the
/// name must change when the content's recipe does).
public enum FixtureCache {
    public static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagekernel-bench-fixtures-v1")

    /// The bytes of fixture `name`, made with `make` the first time.
    public static func data(_ name: String, make: () throws -> Data) throws -> Data {
        let url = directory.appendingPathComponent(name)
        if let data = FileManager.default.contents(atPath: url.path), !data.isEmpty { return data }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let data = try make()
        let temporary = directory.appendingPathComponent(".\(name).\(getpid())")
        try data.write(to: temporary)
        _ = rename(temporary.path, url.path)
        return data
    }
}
