/// Turns one stored row of uncompressed BMP pixels into RGB or RGBA, chosen once per image so
/// the inner loops have no per-pixel branches on the layout.
struct BMPRowConverter {
    enum Kind {
        case indexed(bits: Int)
        case bgr24
        case bgrx32
        case bgra32
        case bitfields16
        case bitfields32
        case linear64
    }

    let kind: Kind
    let width: Int
    /// 3 (RGB) or 4 (RGBA) output bytes per pixel.
    let channels: Int
    /// 256 palette entries as RGBA words, R in the low byte (alpha 255); stored little-endian.
    private let words: [UInt32]
    private let red: ChannelScale
    private let green: ChannelScale
    private let blue: ChannelScale
    private let alpha: ChannelScale?

    init(header: BMPHeader, channels: Int, alphaMask: UInt32) {
        self.width = header.width
        self.channels = channels
        let m = header.masks
        switch header.bitCount {
        case 1, 2, 4, 8: kind = .indexed(bits: header.bitCount)
        case 24: kind = .bgr24
        case 64: kind = .linear64
        case 32 where m.red == 0x00FF_0000 && m.green == 0x0000_FF00 && m.blue == 0x0000_00FF && alphaMask == 0:
            kind = .bgrx32
        case 32 where m.red == 0x00FF_0000 && m.green == 0x0000_FF00 && m.blue == 0x0000_00FF && alphaMask == 0xFF00_0000:
            kind = .bgra32
        case 16: kind = .bitfields16
        default: kind = .bitfields32
        }
        red = ChannelScale(mask: m.red)
        green = ChannelScale(mask: m.green)
        blue = ChannelScale(mask: m.blue)
        alpha = alphaMask == 0 ? nil : ChannelScale(mask: alphaMask)
        words = (0..<256).map { index in
            UInt32(header.palette[index * 3]) | UInt32(header.palette[index * 3 + 1]) << 8 | UInt32(header.palette[index * 3 + 2]) << 16 | 0xFF00_0000
        }
    }

    /// Converts `width` pixels from `source` (which holds at least the row's bytes) into `dest`.
    func convert(_ source: UnsafeRawBufferPointer, into dest: UnsafeMutablePointer<UInt8>) {
        guard let src = source.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        switch kind {
        case .indexed(let bits): expandIndexed(src, bits: bits, into: dest)
        case .bgr24 where channels == 3: bgrToRGB(src, into: dest)
        case .bgr24: swizzle(src, sourceBytes: 3, keepsAlpha: false, into: dest)
        case .bgrx32: swizzle(src, sourceBytes: 4, keepsAlpha: false, into: dest)
        case .bgra32: swizzle(src, sourceBytes: 4, keepsAlpha: true, into: dest)
        case .bitfields16:
            for x in 0..<width {
                let s = src + x * 2
                writeFields(UInt32(s[0]) | UInt32(s[1]) << 8, to: dest + x * channels)
            }
        case .bitfields32:
            for x in 0..<width {
                let s = src + x * 4
                writeFields(UInt32(s[0]) | UInt32(s[1]) << 8 | UInt32(s[2]) << 16 | UInt32(s[3]) << 24, to: dest + x * channels)
            }
        case .linear64:
            for x in 0..<width {
                let s = src + x * 8, d = dest + x * channels
                @inline(__always) func sample(_ i: Int) -> Int { Int(Int16(bitPattern: UInt16(s[i * 2]) | UInt16(s[i * 2 + 1]) << 8)) }
                d[0] = LinearToSRGB.table[min(8192, max(0, sample(2)))]
                d[1] = LinearToSRGB.table[min(8192, max(0, sample(1)))]
                d[2] = LinearToSRGB.table[min(8192, max(0, sample(0)))]
                if channels == 4 { d[3] = UInt8((min(8192, max(0, sample(3))) * 255 + 4096) / 8192) }
            }
        }
    }

    /// 24-bit BGR to RGB, four pixels (three 32-bit words) at a time.
    @inline(__always)
    private func bgrToRGB(_ src: UnsafePointer<UInt8>, into dest: UnsafeMutablePointer<UInt8>) {
        let source = UnsafeRawPointer(src), target = UnsafeMutableRawPointer(dest)
        let blocks = width / 4
        for block in 0..<blocks {
            let o = block &* 12
            // Little-endian words: s0 = b0 g0 r0 b1, s1 = g1 r1 b2 g2, s2 = r2 b3 g3 r3.
            let s0 = UInt32(littleEndian: source.loadUnaligned(fromByteOffset: o, as: UInt32.self))
            let s1 = UInt32(littleEndian: source.loadUnaligned(fromByteOffset: o &+ 4, as: UInt32.self))
            let s2 = UInt32(littleEndian: source.loadUnaligned(fromByteOffset: o &+ 8, as: UInt32.self))
            let d0 = (s0 >> 16 & 0xFF) | (s0 & 0xFF00) | (s0 & 0xFF) << 16 | (s1 >> 8 & 0xFF) << 24
            let d1 = (s1 & 0xFF) | (s0 >> 24) << 8 | (s2 & 0xFF) << 16 | (s1 >> 24) << 24
            let d2 = (s1 >> 16 & 0xFF) | (s2 >> 24) << 8 | (s2 >> 16 & 0xFF) << 16 | (s2 >> 8 & 0xFF) << 24
            target.storeBytes(of: d0.littleEndian, toByteOffset: o, as: UInt32.self)
            target.storeBytes(of: d1.littleEndian, toByteOffset: o &+ 4, as: UInt32.self)
            target.storeBytes(of: d2.littleEndian, toByteOffset: o &+ 8, as: UInt32.self)
        }
        for x in (blocks * 4)..<width {
            let s = src + x * 3, d = dest + x * 3
            d[0] = s[2]; d[1] = s[1]; d[2] = s[0]
        }
    }

    /// BGR(X/A) to RGB(A): the byte-aligned layouts, one loop per output width.
    @inline(__always)
    private func swizzle(_ src: UnsafePointer<UInt8>, sourceBytes: Int, keepsAlpha: Bool, into dest: UnsafeMutablePointer<UInt8>) {
        if channels == 3 {
            for x in 0..<width {
                let s = src + x * sourceBytes, d = dest + x * 3
                d[0] = s[2]; d[1] = s[1]; d[2] = s[0]
            }
        } else if sourceBytes == 4 {
            // One 32-bit word per pixel: swap B and R (a loop LLVM vectorises).
            let source = UnsafeRawPointer(src), target = UnsafeMutableRawPointer(dest)
            let opaque: UInt32 = keepsAlpha ? 0 : 0xFF00_0000
            for x in 0..<width {
                let v = UInt32(littleEndian: source.loadUnaligned(fromByteOffset: x &* 4, as: UInt32.self))
                target.storeBytes(of: ((v & 0xFF00_FF00) | (v >> 16 & 0xFF) | (v & 0xFF) << 16 | opaque).littleEndian, toByteOffset: x &* 4, as: UInt32.self)
            }
        } else {
            for x in 0..<width {
                let s = src + x * sourceBytes, d = dest + x * 4
                d[0] = s[2]; d[1] = s[1]; d[2] = s[0]; d[3] = 255
            }
        }
    }

    @inline(__always)
    private func writeFields(_ pixel: UInt32, to d: UnsafeMutablePointer<UInt8>) {
        d[0] = red.scale(pixel)
        d[1] = green.scale(pixel)
        d[2] = blue.scale(pixel)
        if channels == 4 { d[3] = alpha?.scale(pixel) ?? 255 }
    }

    /// Palette lookups for 1/2/4/8-bit indices (also used for RLE rows, as 8-bit indices).
    func expandIndexed(_ src: UnsafePointer<UInt8>, bits: Int, into dest: UnsafeMutablePointer<UInt8>) {
        words.withUnsafeBufferPointer { table in
            guard let colours = table.baseAddress, width > 0 else { return }
            let target = UnsafeMutableRawPointer(dest)
            let perByte = 8 / bits
            let mask = UInt8(truncatingIfNeeded: (1 << bits) - 1)
            @inline(__always) func index(_ x: Int) -> Int {
                if bits == 8 { return Int(src[x]) }
                let shift = 8 - bits * (x % perByte + 1)
                return Int((src[x / perByte] >> UInt8(shift)) & mask)
            }
            if channels == 4 {
                for x in 0..<width { target.storeBytes(of: colours[index(x)].littleEndian, toByteOffset: x &* 4, as: UInt32.self) }
            } else {
                // Four bytes stored per pixel, three kept: the next pixel overwrites the fourth.
                for x in 0..<(width - 1) { target.storeBytes(of: colours[index(x)].littleEndian, toByteOffset: x &* 3, as: UInt32.self) }
                let last = colours[index(width - 1)], d = dest + (width - 1) * 3
                d[0] = UInt8(truncatingIfNeeded: last); d[1] = UInt8(truncatingIfNeeded: last >> 8); d[2] = UInt8(truncatingIfNeeded: last >> 16)
            }
        }
    }
}
