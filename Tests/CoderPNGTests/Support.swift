import Digests
import Foundation
import ImageKernel

/// SHA-256 (lowercase hex) of the image converted to 8-bit RGBA, as REFERENCE.tsv hashes it.
func rgba8SHA256(_ image: Image) -> String {
    SHA256.hash(image.rgba8Pixels()).hex
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
    SHA256.hash(bytes).hex
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

/// The result of a throwing kernel call, so tests can check both outcomes without mixing
/// error types in one `do` block.
func outcome<T>(_ body: () throws(ImageKernelError) -> T) -> Result<T, ImageKernelError> {
    Result(catching: body)
}

/// CRC-32 as PNG chunks use it (ISO 3309), for building test files.
func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

/// One PNG chunk with its length and CRC.
func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    return bigEndian32(UInt32(data.count)) + body + bigEndian32(crc32(body))
}

func bigEndian32(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}

let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

/// A PNG whose IHDR declares `width`×`height` 8-bit RGB, followed by a tiny IDAT and IEND:
/// enough for a header-level check, not a decodable image.
func pngDeclaring(width: UInt32, height: UInt32) -> Data {
    let ihdr = bigEndian32(width) + bigEndian32(height) + [8, 2, 0, 0, 0]
    return Data(pngSignature + pngChunk("IHDR", ihdr) + pngChunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
        + pngChunk("IEND", []))
}

/// `file` with `chunk` inserted just before its first IDAT.
func inserting(_ chunk: [UInt8], beforeIDATOf file: Data) -> Data {
    var bytes = [UInt8](file)
    var offset = 8
    while offset + 8 <= bytes.count {
        let length = Int(bigEndian32Value(bytes, offset))
        if String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self) == "IDAT" { break }
        offset += 12 + length
    }
    bytes.insert(contentsOf: chunk, at: offset)
    return Data(bytes)
}

func bigEndian32Value(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
}

/// A small ICC profile (a header and five XYZ tags) that libpng accepts for `colorSpace`
/// (`"RGB "` or `"GRAY"`). libpng 1.6 rejects some very short profiles as "too short".
func minimalICCProfile(colorSpace: String) -> [UInt8] {
    let tags = ["wtpt", "bkpt", "rXYZ", "gXYZ", "bXYZ"]
    let dataStart = 132 + 12 * tags.count
    let size = dataStart + 20 * tags.count
    var tagTable = bigEndian32(UInt32(tags.count))
    var tagData: [UInt8] = []
    for (index, tag) in tags.enumerated() {
        tagTable += Array(tag.utf8) + bigEndian32(UInt32(dataStart + 20 * index)) + bigEndian32(20)
        let x = UInt32(0x0000_F6D6 - 0x1000 * index)
        tagData += Array("XYZ ".utf8) + [0, 0, 0, 0] + bigEndian32(x) + bigEndian32(0x0001_0000) + bigEndian32(0x0000_D32D)
    }
    var header = [UInt8](repeating: 0, count: 128)
    func put(_ bytes: [UInt8], at offset: Int) { header.replaceSubrange(offset..<offset + bytes.count, with: bytes) }
    put(bigEndian32(UInt32(size)), at: 0)
    put(bigEndian32(0x0430_0000), at: 8)  // version 4.3
    put(Array("mntr".utf8), at: 12)
    put(Array(colorSpace.utf8), at: 16)
    put(Array("XYZ ".utf8), at: 20)
    put(Array("acsp".utf8), at: 36)
    put(bigEndian32(0x0000_F6D6) + bigEndian32(0x0001_0000) + bigEndian32(0x0000_D32D), at: 68)  // D50
    return header + tagTable + tagData
}

func makeImage(width: Int, height: Int, format: PixelFormat, seed: UInt32 = 1) throws -> Image {
    try Image(
        width: width, height: height, pixelFormat: format,
        pixels: syntheticPixels(width: width, height: height, channels: format.channelCount, bitsPerComponent: format.bitsPerComponent, seed: seed))
}
