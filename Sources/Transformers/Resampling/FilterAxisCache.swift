import ImageKernel

/// The recently used ``FilterAxis`` values, within a byte budget, shared by every resize and
/// blur in the process.
///
/// The key is everything the weights depend on (input length, the source span's exact bounds,
/// output length, filter or sigma), so a hit gives the very weights a fresh computation would.
/// Least recently used axes go first once the budget is spent; an axis larger than an eighth of
/// the budget (a huge enlargement) is made for its call and not kept.
final class FilterAxisCache: Sendable {
    /// What an axis's weights depend on.
    enum Key: Hashable, Sendable {
        case resampling(input: Int, lower: UInt64, upper: UInt64, output: Int, filter: ResamplingFilter)
        case gaussian(sigma: UInt64, count: Int)
    }

    private struct Slot {
        let axis: FilterAxis
        var lastUse: UInt64
    }

    private struct State {
        var slots: [Key: Slot] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    /// The process's cache: 16 MB.
    static let shared = FilterAxisCache(budget: 16 << 20)

    let budget: Int
    private let state = Locked(State())

    init(budget: Int) {
        self.budget = budget
    }

    /// The resampling axis for `inputCount` samples whose span `lower ..< upper` maps onto
    /// `outputCount` outputs (see ``FilterWeights/init(resampling:from:to:outputCount:filter:)``).
    func resampling(_ inputCount: Int, from lower: Double, to upper: Double, outputCount: Int, filter: ResamplingFilter) -> FilterAxis {
        axis(for: .resampling(input: inputCount, lower: lower.bitPattern, upper: upper.bitPattern, output: outputCount, filter: filter)) {
            FilterWeights(resampling: inputCount, from: lower, to: upper, outputCount: outputCount, filter: filter)
        }
    }

    /// The Gaussian axis of `sigma` over `count` samples (see ``FilterWeights/init(gaussian:count:)``).
    func gaussian(_ sigma: Double, count: Int) -> FilterAxis {
        axis(for: .gaussian(sigma: sigma.bitPattern, count: count)) { FilterWeights(gaussian: sigma, count: count) }
    }

    /// How many axes are kept, and their estimated bytes.
    var usage: (count: Int, bytes: Int) { state.withLock { ($0.slots.count, $0.bytes) } }

    private func axis(for key: Key, make: () -> FilterWeights) -> FilterAxis {
        let hit = state.withLock { state -> FilterAxis? in
            state.clock += 1
            guard var slot = state.slots[key] else { return nil }
            slot.lastUse = state.clock
            state.slots[key] = slot
            return slot.axis
        }
        if let hit { return hit }
        // Made outside the lock: two threads missing the same key at once both compute it, and
        // the second one's axis replaces the first (they are equal).
        let axis = FilterAxis(make())
        let size = axis.estimatedBytes
        guard size <= budget / 8 else { return axis }
        state.withLock { state in
            if let old = state.slots[key] { state.bytes -= old.axis.estimatedBytes }
            state.slots[key] = Slot(axis: axis, lastUse: state.clock)
            state.bytes += size
            while state.bytes > budget, let oldest = state.slots.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.slots[oldest.key] = nil
                state.bytes -= oldest.value.axis.estimatedBytes
            }
        }
        return axis
    }
}
