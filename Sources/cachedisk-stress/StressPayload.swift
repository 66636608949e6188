import Foundation

/// Self-describing payloads: a reader can tell from the bytes alone which key and version they
/// belong to and whether every byte is right.
///
/// Layout: "STRS", seed (UInt64), key (UInt32), version (UInt32), total size (UInt32), then a
/// SplitMix64 stream seeded from (seed, key, version).
public enum StressPayload {
    private static let headerSize = 24

    /// The payload for `key` at `version`; its size varies with both (2 000 … 34 000 bytes).
    public static func make(seed: UInt64, key: Int, version: Int) -> Data {
        var state = mix(seed, key, version)
        let size = headerSize + 2_000 + Int(next(&state) % 32_000)
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.replaceSubrange(0..<4, with: Array("STRS".utf8))
        put(seed, at: 4, in: &bytes)
        put(UInt32(key), at: 12, in: &bytes)
        put(UInt32(version), at: 16, in: &bytes)
        put(UInt32(size), at: 20, in: &bytes)
        var i = headerSize
        while i < size {
            var word = next(&state)
            for _ in 0..<8 where i < size {
                bytes[i] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                i += 1
            }
        }
        return Data(bytes)
    }

    /// The version `data` is a complete, byte-identical payload of, or nil.
    public static func version(of data: Data, seed: UInt64, key: Int) -> Int? {
        guard data.count >= headerSize else { return nil }
        let bytes = [UInt8](data.prefix(headerSize))
        guard bytes[0..<4].elementsEqual("STRS".utf8), get(UInt64.self, at: 4, in: bytes) == seed,
            get(UInt32.self, at: 12, in: bytes) == UInt32(key)
        else { return nil }
        let version = Int(get(UInt32.self, at: 16, in: bytes))
        return make(seed: seed, key: key, version: version) == data ? version : nil
    }

    /// The ETag stored with a version, so a reader can check bytes and validators belong together.
    public static func etag(version: Int) -> String { "\"v\(version)\"" }

    private static func mix(_ seed: UInt64, _ key: Int, _ version: Int) -> UInt64 {
        var state = seed ^ 0x9E37_79B9_7F4A_7C15
        state = state &* 31 &+ UInt64(key)
        state = state &* 31 &+ UInt64(version)
        _ = next(&state)
        return state
    }

    private static func next(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static func put<T: FixedWidthInteger>(_ value: T, at offset: Int, in bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for (i, byte) in raw.enumerated() { bytes[offset + i] = byte }
        }
    }

    private static func get<T: FixedWidthInteger>(_: T.Type, at offset: Int, in bytes: [UInt8]) -> T {
        var value = T.zero
        withUnsafeMutableBytes(of: &value) { raw in
            for i in 0..<raw.count { raw[i] = bytes[offset + i] }
        }
        return T(littleEndian: value)
    }
}
