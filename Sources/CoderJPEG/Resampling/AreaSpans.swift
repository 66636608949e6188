/// For each output index along one axis of an area-average downscale: the source indices its
/// window covers and their weights as fixed-point integers summing to exactly `unit`, computed
/// once per image so the resampler's loops only read flat integer arrays.
///
/// `span(i)` is the window itself (`low...high`, every index that overlaps it); `first` and the
/// padded `weights` give every window the same number of taps (the widest span; narrower ones get
/// zero weights, and windows at the far edge start earlier so they stay inside the source). A
/// constant trip count keeps the gathering loop free of the branch mispredictions a 2-or-3 pattern
/// costs per pixel.
struct AreaSpans {
    /// Source indices per padded window.
    let taps: Int
    /// The first source index of each padded window; `first[i] + taps <= source`.
    let first: [Int]
    /// `taps` weights per output, output after output, each window summing to `unit`.
    let weights: [Int32]
    /// The first and last source index each window really covers.
    let low: [Int]
    let high: [Int]

    init(from source: Int, to target: Int, unit: Int32) {
        precondition(source > 0 && target > 0 && unit > 0)
        let ratio = Double(source) / Double(target)
        var low = [Int](repeating: 0, count: target)
        var high = [Int](repeating: 0, count: target)
        var stride = 1
        for index in 0..<target {
            let start = Double(index) * ratio
            let end = min(Double(source), Double(index + 1) * ratio)
            low[index] = min(source - 1, Int(start))
            high[index] = max(low[index], min(source - 1, Int((end - 1e-9).rounded(.up)) - 1))
            stride = max(stride, high[index] - low[index] + 1)
        }
        var exact = [Double](repeating: 0, count: stride * target)
        let taps = stride
        for index in 0..<target {
            let start = Double(index) * ratio
            let end = min(Double(source), Double(index + 1) * ratio)
            var total = 0.0
            for s in low[index]...high[index] { total += max(0, min(Double(s + 1), end) - max(Double(s), start)) }
            for s in low[index]...high[index] {
                let overlap = max(0, min(Double(s + 1), end) - max(Double(s), start))
                // An upscale's span can have no area; it then takes its one source index whole.
                exact[index * stride + s - low[index]] = total > 0 ? overlap / total : (s == low[index] ? 1 : 0)
            }
        }
        var first = [Int](repeating: 0, count: target)
        var weights = [Int32](repeating: 0, count: target * taps)
        for index in 0..<target {
            let windowStart = min(low[index], source - taps)
            first[index] = windowStart
            // Round each weight, then give the rounding remainder to the largest one so the window
            // sums to `unit` exactly: a flat area stays flat and no sum can overflow.
            var sum: Int32 = 0
            var largest = low[index]
            for s in low[index]...high[index] {
                let w = exact[index * stride + s - low[index]]
                let fixed = Int32((w * Double(unit)).rounded())
                weights[index * taps + s - windowStart] = fixed
                sum += fixed
                if w > exact[index * stride + largest - low[index]] { largest = s }
            }
            weights[index * taps + largest - windowStart] += unit - sum
        }
        self.taps = taps
        self.first = first
        self.weights = weights
        self.low = low
        self.high = high
    }

    /// The weight of source index `s` in window `index` (0 outside it).
    func weight(_ index: Int, _ s: Int) -> Int32 {
        let k = s - first[index]
        return k >= 0 && k < taps ? weights[index * taps + k] : 0
    }
}
