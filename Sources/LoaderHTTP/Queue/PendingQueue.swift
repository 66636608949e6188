/// Transfers waiting for a free slot, by priority and then by FIFO or LIFO order.
///
/// Three buckets (high, normal, low); the next transfer comes from the highest non-empty bucket:
/// its oldest entry in FIFO order, its newest in LIFO order. Each bucket is kept sorted by the
/// sequence number given at enqueue time, so a transfer moved to a higher bucket (a high-priority
/// caller joined it) keeps its age there.
struct PendingQueue<Element: AnyObject> {
    private var buckets: [Bucket] = [Bucket(), Bucket(), Bucket()]
    private let lifo: Bool
    private var nextSequence: UInt64 = 0

    init(lifo: Bool) { self.lifo = lifo }

    var count: Int { buckets.reduce(0) { $0 + $1.count } }
    var isEmpty: Bool { count == 0 }

    /// Adds a transfer behind (FIFO) or in front of (LIFO) the others of its priority.
    mutating func push(_ element: Element, priority: LoadToken.Priority) {
        buckets[priority.rawValue].insert(Entry(sequence: nextSequence, element: element))
        nextSequence += 1
    }

    /// Removes and returns the transfer that should start next.
    mutating func pop() -> Element? {
        for index in buckets.indices.reversed() where buckets[index].count > 0 {
            return lifo ? buckets[index].popLast() : buckets[index].popFirst()
        }
        return nil
    }

    /// Removes a transfer (its last caller left). Returns false if it was not queued.
    @discardableResult
    mutating func remove(_ element: Element) -> Bool {
        for index in buckets.indices {
            if buckets[index].remove(element) != nil { return true }
        }
        return false
    }

    /// Moves a queued transfer to another priority, keeping its age.
    mutating func move(_ element: Element, from old: LoadToken.Priority, to new: LoadToken.Priority) {
        guard old != new, let entry = buckets[old.rawValue].remove(element) else { return }
        buckets[new.rawValue].insert(entry)
    }

    /// Removes and returns everything.
    mutating func removeAll() -> [Element] {
        defer { buckets = [Bucket(), Bucket(), Bucket()] }
        return buckets.flatMap { $0.elements }
    }

    private struct Entry {
        let sequence: UInt64
        let element: Element
    }

    /// Entries sorted by sequence; `head` skips popped entries so FIFO pops are O(1).
    private struct Bucket {
        private var entries: [Entry] = []
        private var head = 0

        var count: Int { entries.count - head }
        var elements: [Element] { entries[head...].map { $0.element } }

        mutating func insert(_ entry: Entry) {
            if let last = entries.last, last.sequence > entry.sequence {
                let index = entries[head...].firstIndex { $0.sequence > entry.sequence } ?? entries.endIndex
                entries.insert(entry, at: index)
            } else {
                entries.append(entry)
            }
        }

        mutating func popFirst() -> Element? {
            guard head < entries.count else { return nil }
            let element = entries[head].element
            head += 1
            if head == entries.count {
                entries.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 64 && head * 2 > entries.count {
                entries.removeFirst(head)
                head = 0
            }
            return element
        }

        mutating func popLast() -> Element? {
            guard head < entries.count else { return nil }
            return entries.removeLast().element
        }

        mutating func remove(_ element: Element) -> Entry? {
            guard let index = entries[head...].firstIndex(where: { $0.element === element }) else { return nil }
            return entries.remove(at: index)
        }
    }
}
