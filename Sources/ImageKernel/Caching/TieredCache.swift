import Foundation

/// A memory cache in front of one or more other ``ImageCache``s (a disk cache, then perhaps a
/// shared tier such as Redis): a cache stack of any depth.
///
/// The memory tier answers `.memory`; the persistent tiers together answer `.disk`, nearest
/// first (``backing``, then ``lowerTiers`` in order). A hit in a lower tier is promoted upward:
/// stored (with `.all`) into every nearer persistent tier before it is returned, so a shared hit
/// lands on the local disk; a promotion that a nearer tier refuses is skipped. A persistent hit
/// that holds an image is promoted into memory. Hits with bytes only are returned as they are;
/// the manager decodes them and stores the image back with type `.memory`. A hit keeps the
/// answering tier's ``CacheQueryResult/isShared``.
///
/// A store for `.disk` or `.all` hands the whole entry to every persistent tier, also when it
/// holds an image but no bytes: each tier encodes it or throws, as ``ImageCache`` requires. When
/// the backing store throws, the memory tier has already taken the image (for `.all`).
public final class TieredCache: ImageCache, Sendable {
    public var name: String { "TieredCache(\(tiers.map(\.name).joined(separator: " → ")))" }

    /// The memory tier.
    public let memory: MemoryCache
    /// The first persistent tier (usually a disk cache).
    public let backing: any ImageCache
    /// Persistent tiers behind ``backing``, nearest first (usually a shared tier); often empty.
    public let lowerTiers: [any ImageCache]

    /// Every persistent tier, nearest first: ``backing``, then ``lowerTiers``.
    public var tiers: [any ImageCache] { [backing] + lowerTiers }

    /// A stack: `memory`, then `backing`, then each of `lowerTiers`.
    public init(memory: MemoryCache = MemoryCache(), backing: any ImageCache, lowerTiers: [any ImageCache] = []) {
        self.memory = memory
        self.backing = backing
        self.lowerTiers = lowerTiers
    }

    /// ``memory``: a `.memory` query is a lookup there.
    public var memoryTier: MemoryCache? { memory }

    public func query(key: String, type: ImageCacheType) async throws(ImageKernelError) -> CacheQueryResult? {
        if Task.isCancelled { throw .cancelled(.cache, plugin: name) }  // the name is built only when needed
        if type.includesMemory, let entry = memory.entry(forKey: key) {
            return CacheQueryResult(entry: entry, source: .memory)
        }
        guard type.includesDisk else { return nil }
        let tiers = tiers
        for (depth, tier) in tiers.enumerated() {
            guard let hit = try await tier.query(key: key, type: .all) else { continue }
            if Task.isCancelled { throw .cancelled(.cache, plugin: name) }
            for nearer in tiers[..<depth] { try? await nearer.store(hit.entry, forKey: key, type: .all) }
            if hit.entry.image != nil, type.includesMemory { memory.setEntry(hit.entry, forKey: key) }
            return CacheQueryResult(entry: hit.entry, source: .disk, isShared: hit.isShared)
        }
        return nil
    }

    /// Stores the entry in the given tiers.
    ///
    /// The memory tier keeps the image and its validators; the bytes stay in the persistent
    /// tiers. An entry without an image is kept in memory as it is for `.memory`; for `.all` it
    /// goes to the persistent tiers only, and an older image in memory for `key` is dropped so
    /// that it cannot shadow the new entry. For `.disk` and `.all` every persistent tier receives
    /// the whole entry.
    /// - Throws: the first error a persistent tier throws, after every tier was asked (a tier that
    ///   throws keeps its old entry). For `.all` the memory tier has taken the entry by then.
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
        if type.includesDisk { try await eachTier { (tier) async throws(ImageKernelError) in try await tier.store(entry, forKey: key, type: .all) } }
    }

    /// Removes the entry from the given tiers.
    /// - Throws: the first error a persistent tier throws, after every tier was asked.
    public func remove(key: String, type: ImageCacheType) async throws(ImageKernelError) {
        if type.includesMemory { memory.removeValue(forKey: key) }
        if type.includesDisk { try await eachTier { (tier) async throws(ImageKernelError) in try await tier.remove(key: key, type: .all) } }
    }

    public func contains(key: String, type: ImageCacheType) async -> ImageCacheType {
        if type.includesMemory, memory.containsValue(forKey: key) { return .memory }
        guard type.includesDisk else { return .none }
        for tier in tiers where await tier.contains(key: key, type: .all) != .none { return .disk }
        return .none
    }

    /// Empties the given tiers.
    /// - Throws: the first error a persistent tier throws, after every tier was asked.
    public func clear(type: ImageCacheType) async throws(ImageKernelError) {
        if type.includesMemory { memory.removeAll() }
        if type.includesDisk { try await eachTier { (tier) async throws(ImageKernelError) in try await tier.clear(type: .all) } }
    }

    /// Runs `body` on every persistent tier, then throws the first error, so one failing tier
    /// does not leave the others stale.
    private func eachTier(_ body: (any ImageCache) async throws(ImageKernelError) -> Void) async throws(ImageKernelError) {
        var firstError: ImageKernelError?
        for tier in tiers {
            do {
                try await body(tier)
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }
    }
}
