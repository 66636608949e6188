import ImageKernel

/// One axis of a ``SeparableFilter``: its float weights and, made on first use, their
/// fixed-point forms for the 8-bit kernels.
///
/// Axes for resizes and blurs come from ``FilterAxisCache``: an image service resizes thousands
/// of sources of a few sizes to a few sizes, and the weights (a `sin` per tap for Lanczos) and
/// their fixed-point forms are the same every time.
final class FilterAxis: Sendable {
    let weights: FilterWeights
    private let forms = Locked<[Int: FixedForms]>([:])

    /// The fixed-point taps with input positions counted from one origin, and their pairs.
    struct FixedForms: @unchecked Sendable {
        let taps: FixedPointTaps
        let pairs: PairedTaps?
        /// Whether pairs were asked for (``pairs`` is also nil when pairing would not pay).
        let pairsConsidered: Bool
    }

    init(_ weights: FilterWeights) {
        self.weights = weights
    }

    /// The fixed-point taps counted from `origin` (the first input column the filter reads, or 0),
    /// with their pairs when `paired` (see ``PairedTaps``); built once per origin. Both are
    /// immutable, so every thread may share them.
    func fixedPoint(origin: Int, paired: Bool) -> FixedForms {
        if let made = forms.withLock({ $0[origin] }), made.pairsConsidered || !paired { return made }
        let taps = FixedPointTaps(weights, origin: origin)
        let made = FixedForms(taps: taps, pairs: paired ? PairedTaps(taps) : nil, pairsConsidered: paired)
        forms.withLock { $0[origin] = made }
        return made
    }

    /// The bytes this axis holds, weights and fixed-point forms together (an estimate for the
    /// cache's budget: the fixed-point forms take about as much as the float weights).
    var estimatedBytes: Int {
        2 * (weights.weights.count * 4 + weights.outputCount * 3 * 8)
    }
}
