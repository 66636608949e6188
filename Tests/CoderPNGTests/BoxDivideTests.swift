import CPNG
import Testing

/// The 32-bit reciprocals of CPNG's 8-bit box kernels (`cpng_box_reciprocal`, and the per-pixel
/// ones of `cpng_box_divide_u32`): `(x · m) >> s` must be exactly `x / d` for every rounded
/// numerator `x < 256·d` the kernels divide, `d ≤ CPNG_BOX_LARGEST_DIVISOR`.
@Suite("32-bit reciprocal division of the 8-bit box kernels")
struct BoxDivideTests {
    static func divide(_ x: UInt32, _ d: UInt32) -> UInt32 {
        var m: UInt32 = 0, s: UInt32 = 0
        cpng_box_reciprocal(d, &m, &s)
        return UInt32(truncatingIfNeeded: (UInt64(x) &* UInt64(m)) >> UInt64(s))
    }

    @Test("exhaustive for every divisor up to 512 and every numerator below 256·d")
    func exhaustiveSmallDivisors() {
        var failures = 0
        for d in UInt32(1)...512 {
            var m: UInt32 = 0, s: UInt32 = 0
            cpng_box_reciprocal(d, &m, &s)
            #expect(cpng_box_divide_u32(d &* 255, d) == 255)
            for x in UInt32(0)..<256 * d where (UInt64(x) &* UInt64(m)) >> UInt64(s) != UInt64(x / d) {
                failures += 1
            }
        }
        #expect(failures == 0)
    }

    /// Beyond 512 every divisor up to the largest, at the numerators closest to a wrong floor:
    /// one below each multiple of `d` (fraction `1 − 1/d`) and the multiples themselves, for the
    /// largest quotients (where the error `x·e/(d·2^s)` is largest) and some small ones.
    @Test("every divisor up to CPNG_BOX_LARGEST_DIVISOR at the numerators nearest a wrong floor")
    func largeDivisorsNearMultiples() {
        var failures = 0
        var d: UInt32 = 513
        while d <= CPNG_BOX_LARGEST_DIVISOR {
            for q in [UInt32(1), 2, 127, 128, 254, 255] {
                let below = (q + 1) * d - 1, at = q * d
                if Self.divide(below, d) != q || Self.divide(at, d) != q { failures += 1 }
            }
            let top = 256 * d - 1
            if Self.divide(top, d) != 255 || cpng_box_divide_u32(top, d) != 255 || cpng_box_divide_u32(255 * d, d) != 255 {
                failures += 1
            }
            d += 1
        }
        #expect(failures == 0)
    }

    @Test("the per-pixel reciprocals and the alpha table agree with the exact ones")
    func perPixelReciprocalsMatch() {
        var table = [UInt32](repeating: 7, count: 70_000)
        cpng_box_alpha_table(&table, table.count)
        #expect(table[0] == 0)
        for d in UInt32(1)..<UInt32(table.count) {
            var m: UInt32 = 0, s: UInt32 = 0
            cpng_box_reciprocal(d, &m, &s)
            #expect(table[Int(d)] == m)
        }
        #expect(cpng_box_divide_u32(0, 0) == 0)
        for d in stride(from: UInt32(1), through: CPNG_BOX_LARGEST_DIVISOR, by: 997) {
            #expect(cpng_box_divide_u32(256 * d - 1, d) == 255 && cpng_box_divide_u32(128 * d - 1, d) == 127)
        }
    }
}
