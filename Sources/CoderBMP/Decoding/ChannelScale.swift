import Foundation

/// One bitfield channel: mask, shift, and the expansion of its values to 8 bits (rounded).
struct ChannelScale {
    let mask: UInt32
    let shift: UInt32
    let maximum: UInt32
    /// `value × 255 / maximum`, rounded, for channels of at most 8 bits (else empty).
    private let table: [UInt8]

    init(mask: UInt32) {
        self.mask = mask
        shift = mask == 0 ? 0 : UInt32(mask.trailingZeroBitCount)
        maximum = mask >> shift
        if maximum > 0 && maximum < 256 {
            let max = UInt32(maximum)
            table = (0...max).map { UInt8(($0 * 255 + max / 2) / max) }
        } else {
            table = []
        }
    }

    @inline(__always)
    func scale(_ pixel: UInt32) -> UInt8 {
        guard maximum != 0 else { return 0 }
        let value = (pixel & mask) >> shift
        if maximum < 256 { return table[Int(value)] }
        return UInt8((UInt64(value) * 255 + UInt64(maximum / 2)) / UInt64(maximum))
    }
}

/// 64-bit BMPs hold linear light in s2.13 fixed point (8192 = 1.0): colour is encoded to sRGB.
enum LinearToSRGB {
    static let table: [UInt8] = (0...8192).map { step in
        let linear = Double(step) / 8192
        let encoded = linear <= 0.0031308 ? linear * 12.92 : 1.055 * pow(linear, 1 / 2.4) - 0.055
        return UInt8((encoded * 255).rounded())
    }
}
