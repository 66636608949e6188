import Foundation
import ImageKernel
import ImageKernelConformance

/// A memory-and-disk cache (``TieredCache`` over a ``MemoryCache``) with one deliberate bug,
/// chosen to break one case of the cache suite.
final class BrokenCache: ImageCache, Sendable {
    let breaks: CacheConformance.Case
    private let base = TieredCache(backing: MemoryCache())
    /// Entries written in two halves (image, then data) for the torn-write bug.
    private let halves = Locked<[String: CacheEntry]>([:])

    init(breaking testCase: CacheConformance.Case) { breaks = testCase }

    var name: String { "BrokenCache" }

    /// Squashes path separators, as a careless file-name mapping would.
    private func mapped(_ key: String) -> String {
        breaks == .anyStringIsAKey ? key.replacingOccurrences(of: "/", with: "_") : key
    }

    func query(key: String, type: ImageCacheType) async throws(ImageKernelError) -> CacheQueryResult? {
        switch breaks {
        case .cancelledQueryThrows where Task.isCancelled:
            return nil  // a cancelled query reads as a miss
        case .missReturnsNil:
            guard let hit = try await base.query(key: key, type: type) else {
                throw ImageKernelError(stage: .cache, plugin: name, code: .notInCache, message: "no entry for \(key)")
            }
            return hit
        case .storeThenQueryHits:
            guard var hit = try await base.query(key: key, type: type) else { return nil }
            hit.source = .disk  // misreports where the hit came from
            return hit
        case .concurrentWritersAndReaders:
            try ImageKernelError.checkCancellation(.cache, plugin: name)
            guard type != .none else { return nil }
            guard let entry = halves.withLock({ $0[key] }) else { return nil }
            return CacheQueryResult(entry: entry, source: entry.image != nil ? .memory : .disk)
        default:
            return try await base.query(key: mapped(key), type: type)
        }
    }

    func store(_ entry: CacheEntry, forKey key: String, type: ImageCacheType) async throws(ImageKernelError) {
        switch breaks {
        case .storeReplacesEntry where await base.contains(key: key, type: .all) != .none:
            return  // the first write wins
        case .cacheTypesKeepTiersApart where type != .none, .noneTypeTouchesNothing:
            try await base.store(entry, forKey: key, type: .all)  // ignores the type
        case .concurrentWritersAndReaders where type != .none:
            halves.withLock { $0[key, default: CacheEntry()].image = entry.image }
            do { try await Task.sleep(for: .milliseconds(1)) } catch { throw .cancelled(.cache, plugin: name) }
            halves.withLock { $0[key, default: CacheEntry()].data = entry.data }
        default:
            try await base.store(entry, forKey: mapped(key), type: type)
        }
    }

    func remove(key: String, type: ImageCacheType) async throws(ImageKernelError) {
        if breaks == .removeDeletesOnlyThatKey {
            return try await base.remove(key: key, type: type == .all ? .memory : type)  // forgets the disk tier
        }
        if breaks == .concurrentWritersAndReaders {
            _ = halves.withLock { $0.removeValue(forKey: key) }
        }
        try await base.remove(key: mapped(key), type: type)
    }

    func contains(key: String, type: ImageCacheType) async -> ImageCacheType {
        switch breaks {
        case .containsReportsTier: return .none  // never implemented
        case .concurrentWritersAndReaders: return type != .none && halves.withLock({ $0[key] != nil }) ? .memory : .none
        default: return await base.contains(key: mapped(key), type: type)
        }
    }

    func clear(type: ImageCacheType) async throws(ImageKernelError) {
        if breaks == .clearEmptiesEveryKey { return }  // does nothing
        if breaks == .concurrentWritersAndReaders { halves.withLock { $0.removeAll() } }
        try await base.clear(type: type)
    }
}
