/// Reduces straight RGBA8 pixels to at most 256 palette entries for GIF.
///
/// Pixels with alpha below 128 become the transparent entry (GIF has 1-bit transparency).
/// Images with few enough colours keep every colour exactly; others get a median-cut palette
/// (Heckbert's: boxes over a 5-bit-per-channel histogram, split at the weighted median of their
/// longest side, each entry the mean of its box's pixels). No dithering.
struct PaletteQuantizer {
    /// Palette entries as packed RGB triples.
    var palette: [UInt8] = []
    /// One palette index per pixel.
    var indices: [UInt8] = []
    /// The index that stands for transparent pixels, if any pixel is transparent.
    var transparentIndex: Int?

    var colorCount: Int { palette.count / 3 }

    init(rgba: [UInt8]) {
        let count = rgba.count / 4
        let hasTransparency = stride(from: 3, to: rgba.count, by: 4).contains { rgba[$0] < 128 }
        let limit = hasTransparency ? 255 : 256
        if hasTransparency { transparentIndex = 0 }
        indices = [UInt8](repeating: 0, count: count)
        if !quantizeExactly(rgba, limit: limit) { medianCut(rgba, limit: limit) }
        if hasTransparency { palette = [0, 0, 0] + palette }
    }

    /// Exact palette when there are at most `limit` opaque colours.
    private mutating func quantizeExactly(_ rgba: [UInt8], limit: Int) -> Bool {
        let offset = transparentIndex == nil ? 0 : 1
        var table: [UInt32: UInt8] = [:]
        var colors: [UInt8] = []
        for pixel in 0..<indices.count {
            let p = pixel * 4
            if rgba[p + 3] < 128 { continue }
            let key = UInt32(rgba[p]) << 16 | UInt32(rgba[p + 1]) << 8 | UInt32(rgba[p + 2])
            if let index = table[key] {
                indices[pixel] = index
                continue
            }
            guard table.count < limit else { return false }
            let index = UInt8(table.count + offset)
            table[key] = index
            colors += [rgba[p], rgba[p + 1], rgba[p + 2]]
            indices[pixel] = index
        }
        palette = colors
        return true
    }

    private struct Bin {
        var count = 0
        var sums = [0, 0, 0]
    }

    private mutating func medianCut(_ rgba: [UInt8], limit: Int) {
        var bins = [Bin](repeating: Bin(), count: 32768)
        @inline(__always) func key(_ p: Int) -> Int { Int(rgba[p] >> 3) << 10 | Int(rgba[p + 1] >> 3) << 5 | Int(rgba[p + 2] >> 3) }
        for pixel in 0..<indices.count where rgba[pixel * 4 + 3] >= 128 {
            let p = pixel * 4
            let k = key(p)
            bins[k].count += 1
            for c in 0..<3 { bins[k].sums[c] += Int(rgba[p + c]) }
        }
        var boxes: [[Int]] = [bins.indices.filter { bins[$0].count > 0 }]
        @inline(__always) func channel(_ k: Int, _ c: Int) -> Int { (k >> (10 - 5 * c)) & 31 }
        func widest(_ box: [Int]) -> (channel: Int, range: Int) {
            (0..<3).map { c -> (Int, Int) in
                let values = box.map { channel($0, c) }
                return (c, (values.max() ?? 0) - (values.min() ?? 0))
            }.max { $0.1 < $1.1 }!
        }
        while boxes.count < limit {
            guard let (boxIndex, side) = boxes.indices.filter({ boxes[$0].count > 1 })
                .map({ ($0, widest(boxes[$0])) }).max(by: { $0.1.range < $1.1.range }), side.range > 0
            else { break }
            let sorted = boxes[boxIndex].sorted { channel($0, side.channel) < channel($1, side.channel) }
            let total = sorted.reduce(0) { $0 + bins[$1].count }
            var running = 0
            var cut = 1
            for (position, k) in sorted.enumerated() {
                running += bins[k].count
                if running * 2 >= total { cut = max(1, min(sorted.count - 1, position + 1)); break }
            }
            boxes[boxIndex] = Array(sorted[..<cut])
            boxes.append(Array(sorted[cut...]))
        }
        let offset = transparentIndex == nil ? 0 : 1
        var binIndex = [UInt8](repeating: 0, count: 32768)
        palette = []
        for (index, box) in boxes.enumerated() {
            let count = max(1, box.reduce(0) { $0 + bins[$1].count })
            for c in 0..<3 { palette.append(UInt8((box.reduce(0) { $0 + bins[$1].sums[c] } + count / 2) / count)) }
            for k in box { binIndex[k] = UInt8(index + offset) }
        }
        for pixel in 0..<indices.count where rgba[pixel * 4 + 3] >= 128 { indices[pixel] = binIndex[key(pixel * 4)] }
    }
}
