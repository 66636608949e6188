/// Photoshop's image resources in a JPEG APP13 marker (`Photoshop 3.0\0`, then `8BIM` blocks),
/// of which CoderJPEG reads and writes the IPTC-IIM records (resource 0x0404). Bounds-checked:
/// a block that runs past the marker ends the walk.
enum PhotoshopResources {
    static let signature: [UInt8] = Array("Photoshop 3.0".utf8) + [0]
    static let blockType: [UInt8] = Array("8BIM".utf8)
    static let iptcResource = 0x0404

    /// The IPTC records of an APP13 payload, or nil when it holds none.
    static func iptc(inAPP13 payload: [UInt8]) -> [UInt8]? {
        guard payload.starts(with: signature) else { return nil }
        var offset = signature.count
        while offset + 7 <= payload.count, payload[offset..<(offset + 4)].elementsEqual(blockType) {
            let id = Int(payload[offset + 4]) << 8 | Int(payload[offset + 5])
            let nameLength = Int(payload[offset + 6])
            var at = offset + 6 + ((nameLength + 2) & ~1)  // the Pascal name, padded to even
            guard at + 4 <= payload.count else { return nil }
            let size = payload[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            at += 4
            guard size <= payload.count - at else { return nil }
            if id == iptcResource { return size > 0 ? Array(payload[at..<(at + size)]) : nil }
            offset = at + ((size + 1) & ~1)
        }
        return nil
    }

    /// An APP13 payload holding one resource: the IPTC records.
    static func app13(iptc: [UInt8]) -> [UInt8] {
        var out = signature + blockType + [UInt8(iptcResource >> 8), UInt8(iptcResource & 0xFF), 0, 0]
        out += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: iptc.count >> $0) } + iptc
        if iptc.count % 2 == 1 { out.append(0) }
        return out
    }
}
