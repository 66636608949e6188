import Foundation

/// An in-memory LRU cache limited by total cost (bytes of pixels) and by entry count.
///
/// Lookups and stores take one lock for a few pointer updates; it is safe from any thread.
/// When either limit is exceeded the least recently used entries are evicted until both hold.
/// As an ``ImageCache`` it is the memory tier: `.disk` queries miss and `.disk` stores do nothing.
/// It keeps what it is given: the image, and the original bytes when the entry has them (their
/// size counts towards the cost). It never encodes or decodes, and its stores never throw.
public final class MemoryCache: ImageCache, Sendable {
    public var name: String { "MemoryCache" }

    private let storage: Locked<LRUStorage>

    /// Creates a cache. A limit of 0 means unlimited.
    /// - Parameters:
    ///   - costLimit: Maximum total cost in bytes; default 256 MiB.
    ///   - countLimit: Maximum number of entries; default unlimited.
    public init(costLimit: Int = 256 << 20, countLimit: Int = 0) {
        storage = Locked(LRUStorage(costLimit: costLimit, countLimit: countLimit))
    }

    /// The entry for `key`, marking it most recently used.
    public func entry(forKey key: String) -> CacheEntry? {
        storage.withLock { $0.value(forKey: key) }
    }

    /// The image for `key`, marking it most recently used.
    public func image(forKey key: String) -> Image? { entry(forKey: key)?.image }

    /// Stores an entry; cost defaults to the image's pixel bytes plus the data's size.
    public func setEntry(_ entry: CacheEntry, forKey key: String, cost: Int? = nil) {
        let cost = cost ?? ((entry.image?.cost ?? 0) + (entry.data?.count ?? 0))
        storage.withLock { $0.set(entry, forKey: key, cost: cost) }
    }

    /// Stores an image with its pixel bytes as cost.
    public func setImage(_ image: Image, forKey key: String) {
        setEntry(CacheEntry(image: image), forKey: key)
    }

    /// Removes the entry for `key`.
    public func removeValue(forKey key: String) {
        storage.withLock { $0.remove(key) }
    }

    /// Whether `key` is cached (does not change recency).
    public func containsValue(forKey key: String) -> Bool {
        storage.withLock { $0.index[key] != nil }
    }

    /// Empties the cache (for memory pressure).
    public func removeAll() { storage.withLock { $0.removeAll() } }

    /// Number of entries.
    public var count: Int { storage.withLock { $0.index.count } }
    /// Sum of the entries' costs.
    public var totalCost: Int { storage.withLock { $0.totalCost } }
    /// The cost limit (0 = unlimited). Lowering it evicts at once.
    public var costLimit: Int {
        get { storage.withLock { $0.costLimit } }
        set { storage.withLock { $0.costLimit = newValue; $0.trim() } }
    }
    /// The count limit (0 = unlimited). Lowering it evicts at once.
    public var countLimit: Int {
        get { storage.withLock { $0.countLimit } }
        set { storage.withLock { $0.countLimit = newValue; $0.trim() } }
    }

    // MARK: ImageCache

    /// Itself: a `.memory` query is a lookup here.
    public var memoryTier: MemoryCache? { self }

    public func query(key: String, type: ImageCacheType) async throws(ImageKernelError) -> CacheQueryResult? {
        try ImageKernelError.checkCancellation(.cache, plugin: name)
        guard type.includesMemory, let entry = entry(forKey: key) else { return nil }
        return CacheQueryResult(entry: entry, source: .memory)
    }

    /// Keeps the entry as it is (image, bytes, validators) for `.memory` and `.all`.
    public func store(_ entry: CacheEntry, forKey key: String, type: ImageCacheType) async throws(ImageKernelError) {
        guard type.includesMemory else { return }
        setEntry(entry, forKey: key)
    }

    public func remove(key: String, type: ImageCacheType) async throws(ImageKernelError) {
        guard type.includesMemory else { return }
        removeValue(forKey: key)
    }

    public func contains(key: String, type: ImageCacheType) async -> ImageCacheType {
        type.includesMemory && containsValue(forKey: key) ? .memory : .none
    }

    public func clear(type: ImageCacheType) async throws(ImageKernelError) {
        guard type.includesMemory else { return }
        removeAll()
    }
}

/// A doubly linked LRU list kept in arrays (no per-entry allocation beyond the slot), indexed by
/// a dictionary. Head is the most recently used entry.
struct LRUStorage {
    private struct Node {
        var key: String
        var entry: CacheEntry?
        var cost: Int
        var prev: Int
        var next: Int
    }

    var costLimit: Int
    var countLimit: Int
    private(set) var totalCost = 0
    private(set) var index: [String: Int] = [:]
    private var nodes: [Node] = []
    private var free: [Int] = []
    private var head = -1
    private var tail = -1

    init(costLimit: Int, countLimit: Int) {
        self.costLimit = costLimit
        self.countLimit = countLimit
    }

    mutating func value(forKey key: String) -> CacheEntry? {
        guard let i = index[key] else { return nil }
        if i != head {
            unlink(i)
            pushFront(i)
        }
        return nodes[i].entry
    }

    mutating func set(_ entry: CacheEntry, forKey key: String, cost: Int) {
        if let i = index[key] {
            totalCost += cost - nodes[i].cost
            nodes[i].entry = entry
            nodes[i].cost = cost
            if i != head {
                unlink(i)
                pushFront(i)
            }
        } else {
            let node = Node(key: key, entry: entry, cost: cost, prev: -1, next: -1)
            let i: Int
            if let reused = free.popLast() {
                nodes[reused] = node
                i = reused
            } else {
                nodes.append(node)
                i = nodes.count - 1
            }
            index[key] = i
            totalCost += cost
            pushFront(i)
        }
        trim()
    }

    mutating func remove(_ key: String) {
        guard let i = index.removeValue(forKey: key) else { return }
        unlink(i)
        release(i)
    }

    mutating func removeAll() {
        index.removeAll()
        nodes.removeAll()
        free.removeAll()
        head = -1
        tail = -1
        totalCost = 0
    }

    mutating func trim() {
        while tail >= 0,
            (costLimit > 0 && totalCost > costLimit) || (countLimit > 0 && index.count > countLimit)
        {
            let victim = tail
            index.removeValue(forKey: nodes[victim].key)
            unlink(victim)
            release(victim)
        }
    }

    private mutating func release(_ i: Int) {
        totalCost -= nodes[i].cost
        nodes[i].entry = nil
        nodes[i].key = ""
        nodes[i].cost = 0
        free.append(i)
    }

    private mutating func unlink(_ i: Int) {
        let (p, n) = (nodes[i].prev, nodes[i].next)
        if p >= 0 { nodes[p].next = n } else { head = n }
        if n >= 0 { nodes[n].prev = p } else { tail = p }
        nodes[i].prev = -1
        nodes[i].next = -1
    }

    private mutating func pushFront(_ i: Int) {
        nodes[i].prev = -1
        nodes[i].next = head
        if head >= 0 { nodes[head].prev = i }
        head = i
        if tail < 0 { tail = i }
    }
}
