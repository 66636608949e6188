/// For each output index along one axis of an area-average downscale: the first source index of
/// its window and the window's weights (summing to 1), in flat arrays so the resampler's loops
/// index memory instead of calling closures.
///
/// Every window has the same number of taps (the widest span; narrower spans get zero weights,
/// and windows at the far edge start earlier so they stay inside the source). A constant trip
/// count keeps the inner loops free of the branch mispredictions a 2-or-3 pattern costs per pixel.
struct AreaSpans {
    /// Source indices per window.
    let taps: Int
    /// The first source index of each output's window; `first[i] + taps <= source`.
    let first: [Int]
    /// `taps` weights per output, output after output.
    let weights: [Float]

    init(from source: Int, to target: Int) {
        precondition(source > 0 && target > 0)
        let ratio = Double(source) / Double(target)
        var spans: [(low: Int, high: Int, start: Double, end: Double)] = []
        spans.reserveCapacity(target)
        for index in 0..<target {
            let start = Double(index) * ratio
            let end = min(Double(source), Double(index + 1) * ratio)
            let low = min(source - 1, Int(start))
            let high = max(low, min(source - 1, Int((end - 1e-9).rounded(.up)) - 1))
            spans.append((low, high, start, end))
        }
        let taps = spans.reduce(1) { max($0, $1.high - $1.low + 1) }
        var first = [Int](repeating: 0, count: target)
        var weights = [Float](repeating: 0, count: target * taps)
        for (index, span) in spans.enumerated() {
            let windowStart = min(span.low, source - taps)
            first[index] = windowStart
            var total = 0.0
            for s in span.low...span.high { total += max(0, min(Double(s + 1), span.end) - max(Double(s), span.start)) }
            for s in span.low...span.high {
                let overlap = max(0, min(Double(s + 1), span.end) - max(Double(s), span.start))
                // An upscale's span can have no area; it then takes its one source index whole.
                weights[index * taps + s - windowStart] = total > 0 ? Float(overlap / total) : (s == span.low ? 1 : 0)
            }
        }
        self.taps = taps
        self.first = first
        self.weights = weights
    }

    /// The last source index output `index` needs.
    func last(_ index: Int) -> Int { first[index] + taps - 1 }
}
