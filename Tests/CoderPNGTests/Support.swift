import Crypto
import Foundation
import ImageKernel

/// SHA-256 (lowercase hex) of the image converted to 8-bit RGBA, as REFERENCE.tsv hashes it.
func rgba8SHA256(_ image: Image) -> String {
    SHA256.hash(data: image.rgba8Pixels()).map { String(format: "%02x", $0) }.joined()
}

/// Runs `body` and returns the `ImageKernelError` it throws, or nil when it succeeds.
func kernelError<T>(_ body: () throws(ImageKernelError) -> T) -> ImageKernelError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// Deterministic test pixels: smooth gradients plus a little noise from a fixed LCG.
func syntheticPixels(width: Int, height: Int, channels: Int, bitsPerComponent: Int, seed: UInt32 = 1) -> [UInt8] {
    var state = seed
    let bytesPerSample = bitsPerComponent / 8
    var out = [UInt8](repeating: 0, count: width * height * channels * bytesPerSample)
    for y in 0..<height {
        for x in 0..<width {
            for c in 0..<channels {
                state = state &* 1_664_525 &+ 1_013_904_223
                let base = (x * 255 / max(1, width - 1) + y * 255 / max(1, height - 1) * (c + 1)) & 0xFF
                let value = (base + Int(state >> 28)) & 0xFF
                let index = ((y * width + x) * channels + c) * bytesPerSample
                if bytesPerSample == 1 {
                    out[index] = UInt8(value)
                } else {
                    let wide = UInt16(value) << 8 | UInt16(state >> 24)
                    withUnsafeBytes(of: wide) { out[index] = $0[0]; out[index + 1] = $0[1] }  // host order
                }
            }
        }
    }
    return out
}

func sha256Hex(_ bytes: [UInt8]) -> String {
    SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
}

/// The chunks of a PNG file, read without libpng (for checking what a file declares).
struct PNGChunks {
    private(set) var chunks: [(type: String, data: [UInt8])] = []

    init(_ data: Data) {
        let bytes = [UInt8](data)
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard length >= 0, offset + 12 + length <= bytes.count else { break }
            chunks.append((type, Array(bytes[offset + 8..<offset + 8 + length])))
            offset += 12 + length
        }
    }

    func chunk(_ type: String) -> [UInt8]? { chunks.first { $0.type == type }?.data }
    var bitDepth: Int { chunk("IHDR").map { Int($0[8]) } ?? 0 }
    var colorType: Int { chunk("IHDR").map { Int($0[9]) } ?? -1 }
}

extension [UInt8] {
    func readUInt16(at offset: Int) -> UInt16 { UInt16(self[offset]) << 8 | UInt16(self[offset + 1]) }
}
