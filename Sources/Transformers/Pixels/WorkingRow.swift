import ImageKernel

/// One pixel while a transformer computes with it: lanes `(c0, c1, c2, alpha)` in the image's own
/// sample scale (0…255 or 0…65535). Gray puts its sample in lane 0; formats without alpha have
/// alpha = the maximum sample value, so every layout runs through the same code.
typealias WorkingPixel = SIMD4<Float>

/// Moves rows between an ``Image``'s bytes and ``WorkingPixel``s.
///
/// With `premultiplies`, straight alpha is premultiplied on load and divided back on store, so
/// filters that mix pixels do not pull the colour of transparent pixels into opaque ones.
/// Images that are already premultiplied stay as they are.
struct WorkingRowCodec {
    let layout: PixelFormat.Layout
    let isWide: Bool
    let premultiplies: Bool
    let maxValue: Float

    init(_ format: PixelFormat, premultiplying: Bool = true) {
        layout = format.layout
        isWide = format.bitsPerComponent == 16
        premultiplies = premultiplying && format.hasAlpha && !format.isPremultiplied
        maxValue = isWide ? 65535 : 255
    }

    /// Loads `width` pixels starting at `source` into `row`.
    func load(_ source: UnsafeRawPointer, width: Int, into row: UnsafeMutablePointer<WorkingPixel>) {
        if isWide {
            loadSamples(source.assumingMemoryBound(to: UInt16.self), width: width, into: row)
        } else {
            loadSamples(source.assumingMemoryBound(to: UInt8.self), width: width, into: row)
        }
    }

    /// Stores `width` pixels of `row` at `destination`, rounding to nearest and clamping.
    func store(_ row: UnsafePointer<WorkingPixel>, width: Int, into destination: UnsafeMutableRawPointer) {
        if isWide {
            storeSamples(row, width: width, into: destination.assumingMemoryBound(to: UInt16.self))
        } else {
            storeSamples(row, width: width, into: destination.assumingMemoryBound(to: UInt8.self))
        }
    }

    @inline(__always)
    private func loadSamples<Sample: FixedWidthInteger & UnsignedInteger>(
        _ s: UnsafePointer<Sample>, width: Int, into row: UnsafeMutablePointer<WorkingPixel>
    ) {
        let opaque = maxValue
        switch layout {
        case .gray:
            for x in 0..<width { row[x] = WorkingPixel(Float(s[x]), 0, 0, opaque) }
        case .grayAlpha:
            for x in 0..<width { row[x] = WorkingPixel(Float(s[2 * x]), 0, 0, Float(s[2 * x + 1])) }
        case .rgb:
            for x in 0..<width { row[x] = WorkingPixel(Float(s[3 * x]), Float(s[3 * x + 1]), Float(s[3 * x + 2]), opaque) }
        case .rgba:
            for x in 0..<width {
                row[x] = WorkingPixel(Float(s[4 * x]), Float(s[4 * x + 1]), Float(s[4 * x + 2]), Float(s[4 * x + 3]))
            }
        }
        guard premultiplies else { return }
        let scale = 1 / opaque
        for x in 0..<width {
            let p = row[x]
            let a = p.w * scale
            row[x] = WorkingPixel(p.x * a, p.y * a, p.z * a, p.w)
        }
    }

    @inline(__always)
    private func storeSamples<Sample: FixedWidthInteger & UnsignedInteger>(
        _ row: UnsafePointer<WorkingPixel>, width: Int, into d: UnsafeMutablePointer<Sample>
    ) {
        let premultiplied = premultiplies
        let opaque = maxValue
        // Scalar clamps and conversions: they compile to single instructions, where the generic
        // SIMD rounding initialisers do not.
        @inline(__always) func quantise(_ v: Float) -> Int32 { Int32(min(max(v + 0.5, 0), opaque)) }
        for x in 0..<width {
            var p = row[x]
            if premultiplied {
                // Alpha is clamped first, as an 8-bit premultiplied pipeline (Pillow's) does.
                let a = min(p.w, opaque)
                let factor: Float = a > 0.5 ? opaque / a : 0
                p = WorkingPixel(p.x * factor, p.y * factor, p.z * factor, a)
            }
            let q = SIMD4<Int32>(quantise(p.x), quantise(p.y), quantise(p.z), quantise(p.w))
            switch layout {
            case .gray: d[x] = Sample(truncatingIfNeeded: q.x)
            case .grayAlpha:
                d[2 * x] = Sample(truncatingIfNeeded: q.x)
                d[2 * x + 1] = Sample(truncatingIfNeeded: q.w)
            case .rgb:
                d[3 * x] = Sample(truncatingIfNeeded: q.x)
                d[3 * x + 1] = Sample(truncatingIfNeeded: q.y)
                d[3 * x + 2] = Sample(truncatingIfNeeded: q.z)
            case .rgba:
                d[4 * x] = Sample(truncatingIfNeeded: q.x)
                d[4 * x + 1] = Sample(truncatingIfNeeded: q.y)
                d[4 * x + 2] = Sample(truncatingIfNeeded: q.z)
                d[4 * x + 3] = Sample(truncatingIfNeeded: q.w)
            }
        }
    }
}
