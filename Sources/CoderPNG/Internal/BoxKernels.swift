/// The loops of ``BoxDownscaler``: flat passes over unsafe buffers, specialised per sample width
/// and channel count so the compiler sees fixed strides (and vectorises the per-row pass).
enum BoxKernels {
    /// Adds one 16-bit source row into the column sums, colour premultiplied by alpha where there is
    /// alpha. (8-bit rows: `cpng_box_accumulate_u8`.)
    static func accumulate(_ row: UnsafeBufferPointer<UInt16>, into sums: UnsafeMutableBufferPointer<UInt64>, channels: Int, hasAlpha: Bool) {
        accumulateAny(row, into: sums, channels: channels, hasAlpha: hasAlpha)
    }

    @inline(__always)
    private static func accumulateAny<Sample: FixedWidthInteger & UnsignedInteger, Sum: FixedWidthInteger & UnsignedInteger>(
        _ row: UnsafeBufferPointer<Sample>, into sums: UnsafeMutableBufferPointer<Sum>, channels: Int, hasAlpha: Bool
    ) {
        let source = row.baseAddress!, target = sums.baseAddress!
        let count = sums.count
        guard hasAlpha else {
            for i in 0..<count { target[i] &+= Sum(truncatingIfNeeded: source[i]) }
            return
        }
        if channels == 4 {
            for p in stride(from: 0, to: count, by: 4) {
                let alpha = Sum(truncatingIfNeeded: source[p + 3])
                target[p] &+= Sum(truncatingIfNeeded: source[p]) &* alpha
                target[p + 1] &+= Sum(truncatingIfNeeded: source[p + 1]) &* alpha
                target[p + 2] &+= Sum(truncatingIfNeeded: source[p + 2]) &* alpha
                target[p + 3] &+= alpha
            }
        } else {
            for p in stride(from: 0, to: count, by: 2) {
                let alpha = Sum(truncatingIfNeeded: source[p + 1])
                target[p] &+= Sum(truncatingIfNeeded: source[p]) &* alpha
                target[p + 1] &+= alpha
            }
        }
    }

    /// Adds each box's columns of `sums` into `boxes` (one entry per output sample) and clears `sums`.
    static func reduce<Sum: FixedWidthInteger & UnsignedInteger>(
        _ sums: UnsafeMutableBufferPointer<Sum>, bounds: UnsafeBufferPointer<Int>, channels: Int,
        into boxes: UnsafeMutableBufferPointer<UInt64>
    ) {
        switch channels {
        case 1: reduce(sums, bounds: bounds, fixedChannels: 1, into: boxes)
        case 2: reduce(sums, bounds: bounds, fixedChannels: 2, into: boxes)
        case 3: reduce(sums, bounds: bounds, fixedChannels: 3, into: boxes)
        default: reduce(sums, bounds: bounds, fixedChannels: 4, into: boxes)
        }
        sums.update(repeating: 0)
    }

    @inline(__always)
    private static func reduce<Sum: FixedWidthInteger & UnsignedInteger>(
        _ sums: UnsafeMutableBufferPointer<Sum>, bounds: UnsafeBufferPointer<Int>, fixedChannels channels: Int,
        into boxes: UnsafeMutableBufferPointer<UInt64>
    ) {
        let source = sums.baseAddress!, target = boxes.baseAddress!
        for x in 0..<bounds.count - 1 {
            let o = x * channels
            for p in stride(from: bounds[x] * channels, to: bounds[x + 1] * channels, by: channels) {
                for c in 0..<channels { target[o + c] &+= UInt64(truncatingIfNeeded: source[p + c]) }
            }
        }
    }

    /// Writes one output row: each box's average over its `columns × rows` pixels, colour
    /// unpremultiplied (divided by the alpha sum) where there is alpha. Rounds to nearest, exactly
    /// as `(sum + n / 2) / n`.
    ///
    /// Quotients are multiplications by reciprocals rounded up (see ``Reciprocal``): exact, and
    /// one floating-point division per pixel at most (by the alpha sum), none per sample.
    static func divide<Sample: FixedWidthInteger & UnsignedInteger>(
        _ boxes: UnsafeMutableBufferPointer<UInt64>, bounds: UnsafeBufferPointer<Int>, rows: Int, channels: Int,
        hasAlpha: Bool, into row: UnsafeMutableBufferPointer<Sample>
    ) {
        switch channels {
        case 1: divide(boxes, bounds: bounds, rows: rows, layout: 1, into: row)
        case 2: divide(boxes, bounds: bounds, rows: rows, layout: 2, into: row)
        case 3: divide(boxes, bounds: bounds, rows: rows, layout: 3, into: row)
        default: divide(boxes, bounds: bounds, rows: rows, layout: 4, into: row)
        }
    }

    /// `layout` is the channel count: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA (alpha last).
    @inline(__always)
    private static func divide<Sample: FixedWidthInteger & UnsignedInteger>(
        _ boxes: UnsafeMutableBufferPointer<UInt64>, bounds: UnsafeBufferPointer<Int>, rows: Int, layout channels: Int,
        into row: UnsafeMutableBufferPointer<Sample>
    ) {
        let sums = boxes.baseAddress!, target = row.baseAddress!
        let boxSizes = BoxSizes(bounds: bounds, rows: rows)
        for x in 0..<bounds.count - 1 {
            let o = x * channels
            var box = SIMD4<Int>()
            for c in 0..<channels { box[c] = Int(truncatingIfNeeded: sums[o + c]) }
            let (pixels, inversePixels) = boxSizes.pixels(columns: bounds[x + 1] - bounds[x])
            let quotients = average(box, pixels: pixels, inversePixels: inversePixels, layout: channels)
            for c in 0..<channels { target[o + c] = Sample(truncatingIfNeeded: Int(quotients[c])) }
        }
    }

    /// ``reduce(_:bounds:channels:into:)`` and ``divide(_:bounds:rows:channels:hasAlpha:into:)`` in
    /// one pass, for an output row whose sums are all still in `sums` (the usual case): each box
    /// is added up in registers and divided at once. Clears `sums`.
    static func reduceAndDivide<Sum: FixedWidthInteger & UnsignedInteger, Sample: FixedWidthInteger & UnsignedInteger>(
        _ sums: UnsafeMutableBufferPointer<Sum>, bounds: UnsafeBufferPointer<Int>, rows: Int, channels: Int,
        into row: UnsafeMutableBufferPointer<Sample>
    ) {
        switch channels {
        case 1: reduceAndDivide(sums, bounds: bounds, rows: rows, layout: 1, into: row)
        case 2: reduceAndDivide(sums, bounds: bounds, rows: rows, layout: 2, into: row)
        case 3: reduceAndDivide(sums, bounds: bounds, rows: rows, layout: 3, into: row)
        default: reduceAndDivide(sums, bounds: bounds, rows: rows, layout: 4, into: row)
        }
        sums.update(repeating: 0)
    }

    @inline(__always)
    private static func reduceAndDivide<Sum: FixedWidthInteger & UnsignedInteger, Sample: FixedWidthInteger & UnsignedInteger>(
        _ sums: UnsafeMutableBufferPointer<Sum>, bounds: UnsafeBufferPointer<Int>, rows: Int, layout channels: Int,
        into row: UnsafeMutableBufferPointer<Sample>
    ) {
        let source = sums.baseAddress!, target = row.baseAddress!
        let boxSizes = BoxSizes(bounds: bounds, rows: rows)
        for x in 0..<bounds.count - 1 {
            var box = SIMD4<Int>()
            for p in stride(from: bounds[x] * channels, to: bounds[x + 1] * channels, by: channels) {
                for c in 0..<channels { box[c] &+= Int(truncatingIfNeeded: source[p + c]) }
            }
            let (pixels, inversePixels) = boxSizes.pixels(columns: bounds[x + 1] - bounds[x])
            let quotients = average(box, pixels: pixels, inversePixels: inversePixels, layout: channels)
            let o = x * channels
            for c in 0..<channels { target[o + c] = Sample(truncatingIfNeeded: Int(quotients[c])) }
        }
    }

    /// One box's averages from its sums (alpha last), in lanes `0..<channels`, to be truncated.
    @inline(__always)
    private static func average(_ box: SIMD4<Int>, pixels: Int, inversePixels: Double, layout channels: Int) -> SIMD4<Double> {
        // Integers to Double through Int: a signed conversion is one instruction.
        let half = pixels >> 1
        switch channels {
        case 1:
            return SIMD4(Double(box[0] &+ half), 0, 0, 0) * inversePixels
        case 2:
            // An alpha sum of 0 has colour sums of 0 too: any factor gives 0.
            let alpha = box[1], inverseAlpha = alpha > 0 ? Reciprocal.roundedUp(alpha) : 0
            return SIMD4(Double(box[0] &+ alpha >> 1), Double(alpha &+ half), 0, 0) * SIMD4(inverseAlpha, inversePixels, 0, 0)
        case 3:
            return SIMD4(Double(box[0] &+ half), Double(box[1] &+ half), Double(box[2] &+ half), 0) * inversePixels
        default:
            let alpha = box[3], colourHalf = alpha >> 1, inverseAlpha = alpha > 0 ? Reciprocal.roundedUp(alpha) : 0
            let numerators = SIMD4(
                Double(box[0] &+ colourHalf), Double(box[1] &+ colourHalf), Double(box[2] &+ colourHalf), Double(alpha &+ half))
            return numerators * SIMD4(inverseAlpha, inverseAlpha, inverseAlpha, inversePixels)
        }
    }
}

/// `1/d` rounded up, so that `Int(Double(n) * Reciprocal.roundedUp(d))` is exactly `n / d`.
///
/// Why exact: the factor is at least `1/d` and at most `(1/d)(1 + 2^-51)`, and the product adds
/// one more rounding. When `d` divides `n` the product is at least the integer `n/d`, which the
/// rounding cannot go below. Otherwise `n/d` is at least `1/d` below the next integer, and the
/// error, under `(n/d)·2^-50`, is smaller than that for every `n` below 2^50. Sums stay below
/// that except for 16-bit alpha boxes of over 262 144 source pixels, which may then be one unit
/// (of 65 535) off. A multiplication replaces a division: a 64-bit `div` per sample costs
/// about ten times as much.
enum Reciprocal {
    @inline(__always)
    static func roundedUp(_ divisor: Int) -> Double {
        (1 / Double(divisor)).nextUp
    }
}

/// The pixel counts of one output row's boxes: a box is `⌊W/w⌋` or `⌊W/w⌋ + 1` columns wide, so
/// two reciprocals serve the whole row.
struct BoxSizes {
    private let narrowColumns: Int
    private let narrow: (pixels: Int, inverse: Double)
    private let wide: (pixels: Int, inverse: Double)

    init(bounds: UnsafeBufferPointer<Int>, rows: Int) {
        narrowColumns = bounds[bounds.count - 1] / (bounds.count - 1)
        narrow = (narrowColumns * rows, Reciprocal.roundedUp(narrowColumns * rows))
        wide = ((narrowColumns + 1) * rows, Reciprocal.roundedUp((narrowColumns + 1) * rows))
    }

    @inline(__always)
    func pixels(columns: Int) -> (pixels: Int, inverse: Double) {
        columns == narrowColumns ? narrow : wide
    }
}
