/// The loops of ``BoxDownscaler``: flat passes over unsafe buffers, specialised per sample width
/// and channel count so the compiler sees fixed strides (and vectorises the per-row pass).
enum BoxKernels {
    /// Adds one source row into the column sums, colour premultiplied by alpha where there is alpha.
    static func accumulate(_ row: UnsafeBufferPointer<UInt8>, into sums: UnsafeMutableBufferPointer<UInt32>, channels: Int, hasAlpha: Bool) {
        if hasAlpha && channels == 4 {
            accumulatePremultipliedRGBA(row, into: sums)
        } else {
            accumulateAny(row, into: sums, channels: channels, hasAlpha: hasAlpha)
        }
    }

    /// RGBA8, one pixel per 4-lane vector: `sums += (r·a, g·a, b·a, a)`.
    private static func accumulatePremultipliedRGBA(_ row: UnsafeBufferPointer<UInt8>, into sums: UnsafeMutableBufferPointer<UInt32>) {
        let source = UnsafeRawPointer(row.baseAddress!)
        let target = UnsafeMutableRawPointer(sums.baseAddress!)
        for pixel in 0..<sums.count / 4 {
            let samples = SIMD4<UInt32>(truncatingIfNeeded: source.loadUnaligned(fromByteOffset: pixel * 4, as: SIMD4<UInt8>.self))
            let alpha = samples[3]
            let weights = SIMD4<UInt32>(alpha, alpha, alpha, 1)
            let sum = target.loadUnaligned(fromByteOffset: pixel * 16, as: SIMD4<UInt32>.self)
            target.storeBytes(of: sum &+ samples &* weights, toByteOffset: pixel * 16, as: SIMD4<UInt32>.self)
        }
    }

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
    /// One pixel's quotients are one 4-lane `Double` division: for integers below 2^53 (sums here
    /// stay far below) the truncated, correctly rounded quotient is the exact integer quotient,
    /// and it costs a fraction of a 64-bit `div` per sample.
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
        for x in 0..<bounds.count - 1 {
            let o = x * channels
            // Integers to Double through Int: a signed conversion is one instruction.
            let pixels = (bounds[x + 1] - bounds[x]) * rows, half = pixels >> 1
            @inline(__always) func sum(_ c: Int) -> Int { Int(truncatingIfNeeded: sums[o + c]) }
            let numerators: SIMD4<Double>, divisors: SIMD4<Double>
            switch channels {
            case 1:
                numerators = SIMD4(Double(sum(0) &+ half), 0, 0, 0)
                divisors = SIMD4(Double(pixels), 1, 1, 1)
            case 2:
                // An alpha sum of 0 has colour sums of 0 too: any divisor gives 0.
                let alpha = sum(1), colourHalf = alpha >> 1
                numerators = SIMD4(Double(sum(0) &+ colourHalf), Double(alpha &+ half), 0, 0)
                divisors = SIMD4(Double(max(alpha, 1)), Double(pixels), 1, 1)
            case 3:
                numerators = SIMD4(Double(sum(0) &+ half), Double(sum(1) &+ half), Double(sum(2) &+ half), 0)
                divisors = SIMD4(repeating: Double(pixels))
            default:
                let alpha = sum(3), colourHalf = alpha >> 1, colourDivisor = Double(max(alpha, 1))
                numerators = SIMD4(
                    Double(sum(0) &+ colourHalf), Double(sum(1) &+ colourHalf), Double(sum(2) &+ colourHalf), Double(alpha &+ half))
                divisors = SIMD4(colourDivisor, colourDivisor, colourDivisor, Double(pixels))
            }
            let quotients = numerators / divisors
            for c in 0..<channels { target[o + c] = Sample(truncatingIfNeeded: Int(quotients[c])) }
        }
    }
}
