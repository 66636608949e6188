/// The loops of ``BoxDownscaler``: flat passes over unsafe buffers, specialised per sample width
/// and channel count so the compiler sees fixed strides (and vectorises the per-row pass).
enum BoxKernels {
    /// Adds one source row into the column sums, colour premultiplied by alpha where there is alpha.
    static func accumulate(_ row: UnsafeBufferPointer<UInt8>, into sums: UnsafeMutableBufferPointer<UInt32>, channels: Int, hasAlpha: Bool) {
        accumulateAny(row, into: sums, channels: channels, hasAlpha: hasAlpha)
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
    /// unpremultiplied (divided by the alpha sum) where there is alpha. Rounds to nearest.
    static func divide<Sample: FixedWidthInteger & UnsignedInteger>(
        _ boxes: UnsafeMutableBufferPointer<UInt64>, bounds: UnsafeBufferPointer<Int>, rows: Int, channels: Int,
        hasAlpha: Bool, into row: UnsafeMutableBufferPointer<Sample>
    ) {
        let sums = boxes.baseAddress!, target = row.baseAddress!
        let colours = hasAlpha ? channels - 1 : channels
        for x in 0..<bounds.count - 1 {
            let o = x * channels
            let pixels = UInt64((bounds[x + 1] - bounds[x]) * rows)
            guard hasAlpha else {
                for c in 0..<channels { target[o + c] = Sample(truncatingIfNeeded: (sums[o + c] + pixels / 2) / pixels) }
                continue
            }
            let alpha = sums[o + colours]
            for c in 0..<colours {
                target[o + c] = alpha == 0 ? 0 : Sample(truncatingIfNeeded: (sums[o + c] + alpha / 2) / alpha)
            }
            target[o + colours] = Sample(truncatingIfNeeded: (alpha + pixels / 2) / pixels)
        }
    }
}
