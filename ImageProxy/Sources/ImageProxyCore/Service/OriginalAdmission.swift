import ImageKernel

/// When an original reaches the disk (and the fleet's shared tier): on its `minUses`-th use,
/// as nginx's `proxy_cache_min_uses` admits a response, so a source rendered once (most of an
/// image service's sources: one variant each) costs no file beside its result. Until then it
/// lives in the manager's memory tier, where the next renders of it find it anyway; a source
/// used again after memory let it go is fetched again, and kept then.
///
/// A use is a render's load of the source: from the origin or from memory (a load from disk
/// or the shared tier finds it kept already). The counts of at most `capacity` sources are held;
/// past that they all start again from zero (a cold source then waits for `minUses` more uses).
final class OriginalAdmission: Sendable {
    let minUses: Int
    private let capacity: Int
    private let uses = Locked<[String: Int]>([:])

    /// Admits on the `minUses`-th use (1: on the first, every original is kept at once).
    init(minUses: Int, capacity: Int = 1 << 16) {
        self.minUses = max(1, minUses)
        self.capacity = max(1, capacity)
    }

    /// Counts one use of the source `key`, loaded from the origin or (`fromOrigin` false) from
    /// memory; true when it is to be kept now: on the `minUses`-th use, and on any later load
    /// from the origin (the disk let it go since).
    func use(_ key: String, fromOrigin: Bool) -> Bool {
        if minUses == 1 { return fromOrigin }
        return uses.withLock { uses in
            if uses.count >= capacity, uses[key] == nil { uses.removeAll(keepingCapacity: true) }
            let count = (uses[key] ?? 0) + 1
            uses[key] = min(count, minUses + 1)
            return fromOrigin ? count >= minUses : count == minUses
        }
    }
}
