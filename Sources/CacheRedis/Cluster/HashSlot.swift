import Foundation

/// Redis Cluster's key → slot mapping: CRC16 (XMODEM: polynomial 0x1021, initial value 0) of
/// the key modulo 16384, where a key with a non-empty `{hash tag}` hashes only the tag (the
/// bytes between its first `{` and the first `}` after it), so related keys share a slot.
enum HashSlot {
    /// Slots in a cluster.
    static let count = 16384

    /// The slot of `key`.
    static func of(_ key: Data) -> Int {
        key.withUnsafeBytes { bytes in
            let key = bytes.bindMemory(to: UInt8.self)
            guard let open = key.firstIndex(of: UInt8(ascii: "{")),
                  let close = key[(open + 1)...].firstIndex(of: UInt8(ascii: "}")), close > open + 1
            else { return Int(crc16(key[...]) & 0x3FFF) }
            return Int(crc16(key[(open + 1)..<close]) & 0x3FFF)
        }
    }

    /// CRC16-CCITT (XMODEM), as the cluster specification defines it (`"123456789"` → 0x31C3).
    static func crc16(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc = (crc << 8) ^ table[Int((crc >> 8) ^ UInt16(byte))]
        }
        return crc
    }

    private static let table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }
}
