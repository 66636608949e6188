/// Decodes the start of a base64 payload (enough for an image header).
enum Base64Prefix {
    static func decode(_ text: Substring) -> [UInt8] {
        var out: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for c in text.utf8 {
            let value: UInt8
            switch c {
            case 0x41...0x5A: value = c - 0x41
            case 0x61...0x7A: value = c - 0x61 + 26
            case 0x30...0x39: value = c - 0x30 + 52
            case 0x2B, 0x2D: value = 62
            case 0x2F, 0x5F: value = 63
            case 0x3D: return out
            default: continue  // whitespace and escapes
            }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
            }
        }
        return out
    }
}

/// The pixel size a PNG, GIF or JPEG header declares.
enum RasterHeader {
    static func size(_ b: [UInt8]) -> (width: Double, height: Double)? {
        func be(_ i: Int, _ n: Int) -> Double? {
            guard i + n <= b.count else { return nil }
            return Double((0..<n).reduce(0) { $0 << 8 | Int(b[i + $1]) })
        }
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47]), let w = be(16, 4), let h = be(20, 4) { return (w, h) }
        if b.starts(with: [0x47, 0x49, 0x46]), b.count >= 10 {
            return (Double(Int(b[6]) | Int(b[7]) << 8), Double(Int(b[8]) | Int(b[9]) << 8))
        }
        guard b.starts(with: [0xFF, 0xD8]) else { return nil }
        var i = 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }
            guard let length = be(i + 2, 2) else { return nil }
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard let h = be(i + 5, 2), let w = be(i + 7, 2) else { return nil }
                return (w, h)
            }
            i += 2 + Int(length)
        }
        return nil
    }
}
