/// Appends little-endian integers to a byte array.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: Int) { for k in 0..<2 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * k))) } }
    mutating func u32(_ value: Int) { for k in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * k))) } }
    mutating func zeros(_ count: Int) { bytes.append(contentsOf: repeatElement(0, count: count)) }
}
