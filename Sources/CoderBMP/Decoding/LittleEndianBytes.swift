/// Bounds-checked little-endian reads from a byte buffer: every read outside it is nil, so no
/// offset taken from a file can trap.
struct LittleEndianBytes {
    let bytes: UnsafeRawBufferPointer

    var count: Int { bytes.count }

    func has(_ length: Int, at offset: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= bytes.count && length <= bytes.count - offset
    }

    func u8(_ offset: Int) -> UInt8? {
        has(1, at: offset) ? bytes[offset] : nil
    }

    func u16(_ offset: Int) -> UInt16? {
        guard has(2, at: offset) else { return nil }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    func u32(_ offset: Int) -> UInt32? {
        guard has(4, at: offset) else { return nil }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }

    func i32(_ offset: Int) -> Int32? {
        u32(offset).map { Int32(bitPattern: $0) }
    }

    /// The bytes `offset ..< offset + length`, or nil when they are not all there.
    func slice(_ offset: Int, _ length: Int) -> UnsafeRawBufferPointer? {
        guard has(length, at: offset) else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
    }

    /// The bytes from `offset` to the end (empty when `offset` is past it).
    func tail(from offset: Int) -> UnsafeRawBufferPointer {
        guard offset >= 0, offset < bytes.count else { return UnsafeRawBufferPointer(rebasing: bytes[bytes.count...]) }
        return UnsafeRawBufferPointer(rebasing: bytes[offset...])
    }
}
