import Foundation
import ImageKernel

/// Encoded results in memory, least recently used out first, bounded by their total bytes.
final class ResultMemoryCache: Sendable {
    private struct State {
        var entries: [String: (rendered: Rendered, tick: UInt64)] = [:]
        var bytes = 0
        var tick: UInt64 = 0
    }

    private let limit: Int
    private let state = Locked(State())

    /// A cache holding at most `limit` bytes of results (0 keeps nothing).
    init(limit: Int) { self.limit = limit }

    func value(forKey key: String) -> Rendered? {
        state.withLock { state in
            // One hash of the key: the entry is touched where it is.
            guard let index = state.entries.index(forKey: key) else { return nil }
            state.tick &+= 1
            state.entries.values[index].tick = state.tick
            return state.entries.values[index].rendered
        }
    }

    func set(_ rendered: Rendered, forKey key: String) {
        let cost = rendered.data.count + key.utf8.count
        guard cost <= limit / 4 else { return }
        state.withLock { state in
            state.tick &+= 1
            if let old = state.entries.updateValue((rendered, state.tick), forKey: key) {
                state.bytes -= old.rendered.data.count + key.utf8.count
            }
            state.bytes += cost
            guard state.bytes > limit else { return }
            // Evict the oldest quarter at once: one sort per many inserts.
            let target = limit * 3 / 4
            for (oldKey, old) in state.entries.sorted(by: { $0.value.tick < $1.value.tick }) where state.bytes > target {
                state.entries[oldKey] = nil
                state.bytes -= old.rendered.data.count + oldKey.utf8.count
            }
        }
    }

    var totalBytes: Int { state.withLock { $0.bytes } }
}
