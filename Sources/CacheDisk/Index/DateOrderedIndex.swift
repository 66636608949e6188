/// Sizes and dates of the entry files, by file name, kept in date order (newest at the head) so
/// that trimming takes the oldest from the tail without sorting and a store or a read moves one
/// entry in O(1). A doubly linked list in arrays, indexed by a dictionary.
struct DateOrderedIndex {
    struct Entry: Equatable {
        var name: String
        var size: Int
        var date: Double
    }

    private struct Node {
        var entry: Entry
        var prev: Int
        var next: Int
    }

    private var nodes: [Node] = []
    private var free: [Int] = []
    private var slots: [String: Int] = [:]
    private var head = -1
    private var tail = -1

    /// Sum of the sizes.
    private(set) var totalSize = 0

    var count: Int { slots.count }

    init() {}

    /// Builds an index from scanned entries in any order.
    init(_ entries: [Entry]) {
        nodes.reserveCapacity(entries.count)
        slots.reserveCapacity(entries.count)
        for entry in entries.sorted(by: { $0.date < $1.date }) { upsert(entry) }
    }

    subscript(name: String) -> Entry? {
        slots[name].map { nodes[$0].entry }
    }

    /// Inserts or replaces an entry and makes it the newest. Returns the size it replaced.
    @discardableResult
    mutating func upsert(_ entry: Entry) -> Int? {
        if let slot = slots[entry.name] {
            let old = nodes[slot].entry.size
            totalSize += entry.size - old
            nodes[slot].entry = entry
            moveToHead(slot)
            return old
        }
        let node = Node(entry: entry, prev: -1, next: -1)
        let slot: Int
        if let reused = free.popLast() {
            nodes[reused] = node
            slot = reused
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        slots[entry.name] = slot
        totalSize += entry.size
        pushFront(slot)
        return nil
    }

    /// Sets an entry's date to `date` and makes it the newest (a read under access-date expiry).
    mutating func touch(_ name: String, date: Double) {
        guard let slot = slots[name] else { return }
        nodes[slot].entry.date = date
        moveToHead(slot)
    }

    /// Removes an entry; returns it.
    @discardableResult
    mutating func remove(_ name: String) -> Entry? {
        guard let slot = slots.removeValue(forKey: name) else { return nil }
        let entry = nodes[slot].entry
        unlink(slot)
        totalSize -= entry.size
        nodes[slot].entry = Entry(name: "", size: 0, date: 0)
        free.append(slot)
        return entry
    }

    /// The oldest entry.
    var oldest: Entry? { tail >= 0 ? nodes[tail].entry : nil }

    /// The newest entry.
    var newest: Entry? { head >= 0 ? nodes[head].entry : nil }

    /// Entries from the oldest, while `include` holds, at most `limit`.
    func oldestEntries(limit: Int, while include: (Entry) -> Bool) -> [Entry] {
        var out: [Entry] = []
        var slot = tail
        while slot >= 0, out.count < limit, include(nodes[slot].entry) {
            out.append(nodes[slot].entry)
            slot = nodes[slot].prev
        }
        return out
    }

    /// All entries, newest first.
    var entries: [Entry] {
        var out: [Entry] = []
        out.reserveCapacity(count)
        var slot = head
        while slot >= 0 {
            out.append(nodes[slot].entry)
            slot = nodes[slot].next
        }
        return out
    }

    private mutating func moveToHead(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        pushFront(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let (p, n) = (nodes[slot].prev, nodes[slot].next)
        if p >= 0 { nodes[p].next = n } else { head = n }
        if n >= 0 { nodes[n].prev = p } else { tail = p }
        nodes[slot].prev = -1
        nodes[slot].next = -1
    }

    private mutating func pushFront(_ slot: Int) {
        nodes[slot].prev = -1
        nodes[slot].next = head
        if head >= 0 { nodes[head].prev = slot }
        head = slot
        if tail < 0 { tail = slot }
    }
}
