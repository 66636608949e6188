import CPNG
import ImageKernel

/// The usual case of ``BoxKernels/reduceAndDivide(_:bounds:rows:channels:into:)`` for 8-bit
/// samples, without floating point or data-dependent branches: each output row is reduced
/// from the column sums and divided in one pass.
///
/// - Columns: a box is `k = ⌊W/w⌋` or `k + 1` columns wide. The first `k` are summed by a loop
///   whose trip count is the same for every box; the extra column is added through a mask (all
///   ones or zero), read from one column of zero padding past the last when the box has none.
///   Mixed 1- and 2-column boxes (shrinks under 2×) thus cost no mispredicted branches.
/// - Division: `(x + d/2) / d` as `((x + d/2) · m) >> 55` with `m = ⌊2^55/d⌋ + 1`, exact for
///   every `x < 256·d` (which a sum of 8-bit samples, or premultiplied colour over its alpha sum,
///   always is) once `d ≤ 2^23`. Proof: `x·m/2^55` lies in `(x/d, x/d + x/2^55]`; the fraction of
///   `x/d` is at most `1 − 1/d`, and `x/2^55 < 256·d/2^55 ≤ 1/d`, so the floor is unchanged. The
///   product stays under `2^63 + 256·d`, inside 64 bits.
/// - Alpha: colour is divided by the box's alpha sum `A`, a different divisor per pixel. When
///   the largest possible `A` is small next to the output (shrinks under about 4× per side),
///   its multipliers come from a table built once; otherwise from one integer division per pixel.
///
/// Where a divisor could exceed 2^23 (huge boxes, alpha boxes over 32 896 pixels) the caller
/// keeps the floating-point kernels: ``make(format:bounds:rowBounds:outputPixels:)`` returns nil.
///
/// A class: ``BoxDownscaler`` reaches it once per output row, and a reference is one retain where
/// a copy of the struct retained each of its tables.
final class FixedPointBoxes: Sendable {
    static let shift: UInt64 = 55
    static let largestDivisor = 1 << 23

    let channels: Int
    /// `⌊W/w⌋`: every box has this many columns, or one more.
    let narrowColumns: Int
    /// Per output column: its first source sample (column × channels).
    private let starts: [Int]
    /// Per output column: all ones when the box has `narrowColumns + 1` columns, else zero.
    private let extraColumnMasks: [UInt64]
    /// Multipliers for alpha sums `0...` (entry 0 unused: its colour sums are 0), or empty.
    private let alphaMultipliers: [UInt64]
    /// Whether every divisor is within `CPNG_BOX_LARGEST_DIVISOR`: rows are then written by the C
    /// kernel (`cpng_box_emit_u8`, 32-bit reciprocals) from `cStarts`/`cMasks`.
    private let usesC: Bool
    private let cStarts: [Int32]
    private let cMasks: [UInt32]
    /// `cpng_box_alpha_table` for alpha sums `0...`, or empty (one division per pixel).
    private let cAlphaMultipliers: [UInt32]
    /// `cMasks` repeated for each sample (no alpha), or empty.
    private let cSampleMasks: [UInt32]

    /// `⌊2^55/d⌋ + 1`: `((x · m) >> 55) == x / d` for `x < 256·d`, `1 ≤ d ≤ 2^23`.
    @inline(__always)
    static func multiplier(_ divisor: UInt64) -> UInt64 {
        (1 << shift) / divisor &+ 1
    }

    /// Tables for 8-bit `format` with `bounds`/`rowBounds` as ``BoxDownscaler`` computes them, or
    /// nil where a divisor could be too large for 55-bit multipliers.
    static func make(format: PixelFormat, bounds: [Int], rowBounds: [Int], outputPixels: Int) -> FixedPointBoxes? {
        guard format.bitsPerComponent == 8 else { return nil }
        let width = bounds.count - 1, height = rowBounds.count - 1
        let narrow = bounds[width] / width, narrowRows = rowBounds[height] / height
        let largestBox = (narrow + 1) * (narrowRows + 1)
        let largestDivisor = format.hasAlpha ? 255 * largestBox : largestBox
        guard largestDivisor <= Self.largestDivisor else { return nil }
        let usesC = largestDivisor <= Int(CPNG_BOX_LARGEST_DIVISOR) && (bounds[width] + 1) * format.channelCount <= Int(Int32.max)
        return FixedPointBoxes(
            format: format, bounds: bounds, narrow: narrow, usesC: usesC,
            alphaTableSize: format.hasAlpha && largestDivisor < max(4096, outputPixels) && largestDivisor < 1 << 16
                ? largestDivisor + 1 : 0)
    }

    private init(format: PixelFormat, bounds: [Int], narrow: Int, usesC: Bool, alphaTableSize: Int) {
        channels = format.channelCount
        narrowColumns = narrow
        starts = bounds.dropLast().map { $0 * format.channelCount }
        extraColumnMasks = (0..<bounds.count - 1).map { bounds[$0 + 1] - bounds[$0] > narrow ? ~0 : 0 }
        alphaMultipliers = usesC || alphaTableSize == 0 ? [] : (0..<alphaTableSize).map { $0 == 0 ? 0 : Self.multiplier(UInt64($0)) }
        cAlphaMultipliers = !usesC || alphaTableSize == 0
            ? [] : [UInt32](unsafeUninitializedCapacity: alphaTableSize) { table, count in
                cpng_box_alpha_table(table.baseAddress!, alphaTableSize)
                count = alphaTableSize
            }
        self.usesC = usesC
        cStarts = usesC ? starts.map { Int32(truncatingIfNeeded: $0) } : []
        cMasks = usesC ? extraColumnMasks.map { UInt32(truncatingIfNeeded: $0) } : []
        cSampleMasks = usesC && !format.hasAlpha ? cMasks.flatMap { repeatElement($0, count: format.channelCount) } : []
    }

    /// Writes one output row from `sums` (one per source sample, plus one zero pixel of padding
    /// past the last column) over `rows` source rows, rounded to nearest, colour unpremultiplied.
    /// `scratch`: `width × channels + 4` entries; `sums` needs one sample past its padding pixel.
    func emit(_ sums: UnsafePointer<UInt32>, rows: Int, scratch: UnsafeMutablePointer<UInt32>, into row: UnsafeMutablePointer<UInt8>) {
        if usesC {
            cStarts.withUnsafeBufferPointer { starts in
                cMasks.withUnsafeBufferPointer { masks in
                    cAlphaMultipliers.withUnsafeBufferPointer { table in
                        cSampleMasks.withUnsafeBufferPointer { sampleMasks in
                            cpng_box_emit_u8(
                                sums, starts.baseAddress!, masks.baseAddress!, starts.count, UInt32(narrowColumns), UInt32(rows),
                                UInt32(channels), table.isEmpty ? nil : table.baseAddress,
                                sampleMasks.isEmpty ? nil : sampleMasks.baseAddress, scratch, row)
                        }
                    }
                }
            }
            return
        }
        alphaMultipliers.withUnsafeBufferPointer { table in
            starts.withUnsafeBufferPointer { starts in
                extraColumnMasks.withUnsafeBufferPointer { masks in
                    let table = table.isEmpty ? nil : table.baseAddress
                    // Constant channel counts and (for shrinks under 3×) column counts: fixed
                    // strides, no inner loop.
                    switch (channels, narrowColumns) {
                    case (1, 1): Self.emit(sums, rows: rows, narrow: 1, starts: starts, masks: masks, table: table, layout: 1, into: row)
                    case (1, 2): Self.emit(sums, rows: rows, narrow: 2, starts: starts, masks: masks, table: table, layout: 1, into: row)
                    case (1, _): Self.emit(sums, rows: rows, narrow: narrowColumns, starts: starts, masks: masks, table: table, layout: 1, into: row)
                    case (2, 1): Self.emit(sums, rows: rows, narrow: 1, starts: starts, masks: masks, table: table, layout: 2, into: row)
                    case (2, 2): Self.emit(sums, rows: rows, narrow: 2, starts: starts, masks: masks, table: table, layout: 2, into: row)
                    case (2, _): Self.emit(sums, rows: rows, narrow: narrowColumns, starts: starts, masks: masks, table: table, layout: 2, into: row)
                    case (3, 1): Self.emit(sums, rows: rows, narrow: 1, starts: starts, masks: masks, table: table, layout: 3, into: row)
                    case (3, 2): Self.emit(sums, rows: rows, narrow: 2, starts: starts, masks: masks, table: table, layout: 3, into: row)
                    case (3, _): Self.emit(sums, rows: rows, narrow: narrowColumns, starts: starts, masks: masks, table: table, layout: 3, into: row)
                    case (_, 1): Self.emit(sums, rows: rows, narrow: 1, starts: starts, masks: masks, table: table, layout: 4, into: row)
                    case (_, 2): Self.emit(sums, rows: rows, narrow: 2, starts: starts, masks: masks, table: table, layout: 4, into: row)
                    default: Self.emit(sums, rows: rows, narrow: narrowColumns, starts: starts, masks: masks, table: table, layout: 4, into: row)
                    }
                }
            }
        }
    }

    /// `layout` is the channel count: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA (alpha last).
    @inline(__always)
    private static func emit(
        _ s: UnsafePointer<UInt32>, rows: Int, narrow: Int, starts: UnsafeBufferPointer<Int>, masks: UnsafeBufferPointer<UInt64>,
        table: UnsafePointer<UInt64>?, layout channels: Int, into out: UnsafeMutablePointer<UInt8>
    ) {
        let narrowPixels = UInt64(narrow * rows), widePixels = UInt64((narrow + 1) * rows)
        let narrowM = multiplier(narrowPixels), wideM = multiplier(widePixels)
        let narrowHalf = narrowPixels >> 1, wideHalf = widePixels >> 1
        let hasAlpha = channels == 2 || channels == 4
        let extraOffset = narrow * channels
        var o = 0
        for x in 0..<starts.count {
            let mask = masks[x]
            let m = narrowM ^ ((narrowM ^ wideM) & mask), half = narrowHalf ^ ((narrowHalf ^ wideHalf) & mask)
            var p = starts[x]
            var a0: UInt64 = 0, a1: UInt64 = 0, a2: UInt64 = 0, a3: UInt64 = 0
            for _ in 0..<narrow {
                a0 &+= UInt64(s[p])
                if channels > 1 { a1 &+= UInt64(s[p &+ 1]) }
                if channels > 2 { a2 &+= UInt64(s[p &+ 2]) }
                if channels > 3 { a3 &+= UInt64(s[p &+ 3]) }
                p &+= channels
            }
            let e = starts[x] &+ extraOffset
            a0 &+= UInt64(s[e]) & mask
            if channels > 1 { a1 &+= UInt64(s[e &+ 1]) & mask }
            if channels > 2 { a2 &+= UInt64(s[e &+ 2]) & mask }
            if channels > 3 { a3 &+= UInt64(s[e &+ 3]) & mask }
            if !hasAlpha {
                out[o] = UInt8(truncatingIfNeeded: ((a0 &+ half) &* m) >> shift)
                if channels == 3 {
                    out[o &+ 1] = UInt8(truncatingIfNeeded: ((a1 &+ half) &* m) >> shift)
                    out[o &+ 2] = UInt8(truncatingIfNeeded: ((a2 &+ half) &* m) >> shift)
                }
            } else {
                // Alpha sum 0: colour sums are 0 too, and any multiplier gives 0.
                let alpha = channels == 4 ? a3 : a1
                let alphaM = table.map { $0[Int(truncatingIfNeeded: alpha)] } ?? multiplier(alpha | (alpha == 0 ? 1 : 0))
                let alphaHalf = alpha >> 1
                out[o] = UInt8(truncatingIfNeeded: ((a0 &+ alphaHalf) &* alphaM) >> shift)
                if channels == 4 {
                    out[o &+ 1] = UInt8(truncatingIfNeeded: ((a1 &+ alphaHalf) &* alphaM) >> shift)
                    out[o &+ 2] = UInt8(truncatingIfNeeded: ((a2 &+ alphaHalf) &* alphaM) >> shift)
                    out[o &+ 3] = UInt8(truncatingIfNeeded: ((alpha &+ half) &* m) >> shift)
                } else {
                    out[o &+ 1] = UInt8(truncatingIfNeeded: ((alpha &+ half) &* m) >> shift)
                }
            }
            o &+= channels
        }
    }
}
