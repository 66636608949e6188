import Foundation

/// Precomputed taps of a 1-D convolution: output sample `i` is the sum over `k < counts[i]` of
/// `weights[offsets[i] + k]` times input sample `starts[i] + k`. Weights of each output sum to 1.
struct FilterWeights: Sendable {
    let outputCount: Int
    /// The largest tap count of any output.
    let taps: Int
    let starts: [Int]
    let counts: [Int]
    /// Where each output's weights begin in ``weights``; outputs with equal weights may share them.
    let offsets: [Int]
    let weights: [Float]
    /// Whether any weight is negative (a filter with lobes: its passes can overshoot).
    let hasNegativeWeights: Bool

    /// Resampling weights for `inputCount` samples, of which the span `from ..< to` (fractional
    /// allowed) is mapped onto `outputCount` outputs, computed as Pillow's `precompute_coeffs`.
    init(resampling inputCount: Int, from lower: Double, to upper: Double, outputCount: Int, filter: ResamplingFilter) {
        let scale = (upper - lower) / Double(outputCount)
        let filterScale = max(scale, 1)
        let support = filter.support * filterScale
        let taps = Int(support.rounded(.up)) * 2 + 1
        var starts = [Int](repeating: 0, count: outputCount)
        var counts = [Int](repeating: 0, count: outputCount)
        var weights = [Float](repeating: 0, count: outputCount * taps)
        var row = [Double](repeating: 0, count: taps)
        for i in 0..<outputCount {
            let center = lower + (Double(i) + 0.5) * scale
            let first = max(0, Int(center - support + 0.5))
            let last = min(inputCount, Int(center + support + 0.5))
            let count = max(0, min(taps, last - first))
            var total = 0.0
            for k in 0..<count {
                row[k] = filter.weight((Double(k + first) - center + 0.5) / filterScale)
                total += row[k]
            }
            for k in 0..<count { weights[i * taps + k] = Float(total != 0 ? row[k] / total : row[k]) }
            starts[i] = first
            counts[i] = count
        }
        self.init(outputCount: outputCount, taps: taps, starts: starts, counts: counts, offsets: (0..<outputCount).map { $0 * taps }, weights: weights)
    }

    /// A normalised Gaussian of standard deviation `sigma`, truncated at 3 sigma, one output per
    /// input; near the edges the taps that fall outside are dropped and the rest renormalised.
    init(gaussian sigma: Double, count: Int) {
        // Taps beyond the image would never be used: the kernel is no wider than the image.
        let radius = max(1, min(count, Int((3 * sigma).rounded(.up))))
        let taps = 2 * radius + 1
        var kernel = [Double](repeating: 0, count: taps)
        for k in 0..<taps {
            let d = Double(k - radius)
            kernel[k] = exp(-d * d / (2 * sigma * sigma))
        }
        // Outputs whose kernel lies wholly inside share one copy of it (slot 0), so the weights
        // stay small enough for the cache however wide the image; only the edges get their own.
        var starts = [Int](repeating: 0, count: count)
        var counts = [Int](repeating: 0, count: count)
        var offsets = [Int](repeating: 0, count: count)
        var weights = [Float](repeating: 0, count: taps)
        let total = kernel.reduce(0, +)
        for k in 0..<taps { weights[k] = Float(kernel[k] / total) }
        for i in 0..<count {
            let first = max(0, i - radius), last = min(count, i + radius + 1)
            starts[i] = first
            counts[i] = last - first
            guard last - first < taps else { continue }
            offsets[i] = weights.count
            var edgeTotal = 0.0
            for j in first..<last { edgeTotal += kernel[j - i + radius] }
            for j in first..<last { weights.append(Float(kernel[j - i + radius] / edgeTotal)) }
        }
        self.init(outputCount: count, taps: taps, starts: starts, counts: counts, offsets: offsets, weights: weights)
    }

    private init(outputCount: Int, taps: Int, starts: [Int], counts: [Int], offsets: [Int], weights: [Float]) {
        self.outputCount = outputCount
        self.taps = taps
        self.starts = starts
        self.counts = counts
        self.offsets = offsets
        self.weights = weights
        self.hasNegativeWeights = weights.contains { $0 < 0 }
    }

    /// Whether every output takes exactly its own input sample (the pass can be skipped).
    var isIdentity: Bool {
        for i in 0..<outputCount where counts[i] != 1 || starts[i] != i || weights[offsets[i]] != 1 { return false }
        return true
    }
}
