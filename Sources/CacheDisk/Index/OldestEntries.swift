/// The `capacity` oldest entries of a stream, in memory for `capacity` entries however long the
/// stream: a max-heap on the date, so an entry older than the newest one kept replaces it.
struct OldestEntries {
    let capacity: Int
    private var heap: [DateOrderedIndex.Entry] = []

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        heap.reserveCapacity(min(self.capacity, 4096))
    }

    var count: Int { heap.count }

    /// Whether entries were turned away (the stream had more than `capacity`).
    private(set) var overflowed = false

    mutating func insert(_ entry: DateOrderedIndex.Entry) {
        if heap.count < capacity {
            heap.append(entry)
            siftUp(heap.count - 1)
            return
        }
        overflowed = true
        guard entry.date < heap[0].date else { return }
        heap[0] = entry
        siftDown(0)
    }

    /// The entries kept, oldest first.
    func oldestFirst() -> [DateOrderedIndex.Entry] {
        heap.sorted { $0.date < $1.date }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].date > heap[parent].date else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var largest = left
            if left + 1 < heap.count, heap[left + 1].date > heap[left].date { largest = left + 1 }
            guard heap[largest].date > heap[parent].date else { return }
            heap.swapAt(largest, parent)
            parent = largest
        }
    }
}
