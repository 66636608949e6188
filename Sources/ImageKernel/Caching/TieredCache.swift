import Foundation

/// A memory cache in front of any other ``ImageCache`` (usually a disk cache).
///
/// The memory tier answers `.memory`; the backing cache answers `.disk`. A backing hit that holds
/// an image is promoted into memory. Backing hits with bytes only are returned as they are; the
/// manager decodes them and stores the image back with type `.memory`.
///
/// A store for `.disk` or `.all` hands the whole entry to the backing tier, also when it holds an
/// image but no bytes: the backing tier encodes it or throws, as ``ImageCache`` requires. When the
/// backing store throws, the memory tier has already taken the image (for `.all`).
public final class TieredCache: ImageCache, Sendable {
    public var name: String { "TieredCache(\(backing.name))" }

    /// The memory tier.
    public let memory: MemoryCache
    /// The persistent tier.
    public let backing: any ImageCache

    public init(memory: MemoryCache = MemoryCache(), backing: any ImageCache) {
        self.memory = memory
        self.backing = backing
    }

    public func query(key: String, type: ImageCacheType) async throws(ImageKernelError) -> CacheQueryResult? {
        try ImageKernelError.checkCancellation(.cache, plugin: name)
        if type.includesMemory, let entry = memory.entry(forKey: key) {
            return CacheQueryResult(entry: entry, source: .memory)
        }
        guard type.includesDisk else { return nil }
        guard let hit = try await backing.query(key: key, type: .all) else { return nil }
        try ImageKernelError.checkCancellation(.cache, plugin: name)
        if hit.entry.image != nil, type.includesMemory { memory.setEntry(hit.entry, forKey: key) }
        return CacheQueryResult(entry: hit.entry, source: .disk)
    }

    /// Stores the entry in the given tiers.
    ///
    /// The memory tier keeps the image and its validators; the bytes stay in the backing tier. An
    /// entry without an image is kept in memory as it is for `.memory`; for `.all` it goes to the
    /// backing tier only, and an older image in memory for `key` is dropped so that it cannot
    /// shadow the new entry. For `.disk` and `.all` the backing tier receives the whole entry.
    /// - Throws: what the backing tier throws. For `.all` the memory tier has taken the entry by then.
    public func store(_ entry: CacheEntry, forKey key: String, type: ImageCacheType) async throws(ImageKernelError) {
        if type.includesMemory {
            if entry.image != nil {
                memory.setEntry(CacheEntry(image: entry.image, validators: entry.validators), forKey: key)
            } else if type.includesDisk {
                memory.removeValue(forKey: key)
            } else {
                memory.setEntry(entry, forKey: key)
            }
        }
        if type.includesDisk { try await backing.store(entry, forKey: key, type: .all) }
    }

    public func remove(key: String, type: ImageCacheType) async throws(ImageKernelError) {
        if type.includesMemory { memory.removeValue(forKey: key) }
        if type.includesDisk { try await backing.remove(key: key, type: .all) }
    }

    public func contains(key: String, type: ImageCacheType) async -> ImageCacheType {
        if type.includesMemory, memory.containsValue(forKey: key) { return .memory }
        if type.includesDisk, await backing.contains(key: key, type: .all) != .none { return .disk }
        return .none
    }

    public func clear(type: ImageCacheType) async throws(ImageKernelError) {
        if type.includesMemory { memory.removeAll() }
        if type.includesDisk { try await backing.clear(type: .all) }
    }
}
