import Foundation
import ImageKernel

extension Result where Failure == ImageKernelError {
    /// The error of a failed transform, nil for a success.
    var error: ImageKernelError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// The synthetic test pattern of Reference/make_references.py (`sample`), byte for byte.
func referencePattern(width w: Int, height h: Int, channels: Int) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: w * h * channels)
    for y in 0..<h {
        for x in 0..<w {
            for c in 0..<channels {
                let value: Int
                if channels == 4 && c == 3 {
                    value = y % 7 == 0 ? 255 : x < w / 5 ? 0 : min(255, (x - w / 5) * 255 / max(1, w / 2))
                } else {
                    let base = (x * 255 / max(1, w - 1)) * (c + 1) + (y * 255 / max(1, h - 1)) * (3 - c)
                    let edge = ((x / 5) + (y / 3)) % 2 == 1 ? 96 : 0
                    let noise = ((x * 7919 + y * 104_729 + c * 1_299_709) ^ (x * y)) % 17
                    value = (base + edge + noise) % 256
                }
                out[(y * w + x) * channels + c] = UInt8(value)
            }
        }
    }
    return out
}

/// A `width`×`height` image of `format` whose samples come from a fixed pseudo-random sequence.
func noiseImage(width: Int, height: Int, format: PixelFormat, seed: UInt64 = 7) throws -> Image {
    var state = seed
    let count = width * height * format.bytesPerPixel
    var bytes = [UInt8](repeating: 0, count: count)
    for i in 0..<count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        bytes[i] = UInt8(truncatingIfNeeded: state >> 33)
    }
    return try Image(width: width, height: height, pixelFormat: format, pixels: bytes)
}

/// The 8-bit sample at `x, y`, channel `c`, honouring `bytesPerRow`.
func sample(_ image: Image, _ x: Int, _ y: Int, _ c: Int) -> Int {
    precondition(image.pixelFormat.bitsPerComponent == 8)
    return Int(image.pixels[y * image.bytesPerRow + x * image.pixelFormat.channelCount + c])
}

/// The directory of this test target's committed fixtures.
let referenceDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Reference")

/// The kernel level (`ik_set_simd_enabled`) is process-wide: tests that change it, and tests
/// whose expectations depend on which path the level picks, run one at a time under this lock.
enum SIMDLevelLock {
    private static let lock = NSLock()

    @discardableResult
    static func held<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
