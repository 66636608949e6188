/// Lower-case hexadecimal, for digests and anything else made of bytes.
public enum Hex {
    /// `bytes` in lower-case hexadecimal, two digits a byte.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        let array = Array(bytes)
        return String(unsafeUninitializedCapacity: array.count * 2) { out in
            array.withUnsafeBytes { write($0, into: out) }
        }
    }

    /// Writes the hex of `bytes` into `out` (at least twice as long) and returns how many bytes it wrote.
    static func write(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var index = 0
        for byte in bytes {
            out[index] = digit(byte >> 4)
            out[index + 1] = digit(byte & 0x0F)
            index += 2
        }
        return index
    }

    /// The lower-case hex digit of a nibble (0–15).
    @inline(__always)
    static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
