import Foundation
import ImageKernel

/// `ImageCache` conformance: the disk tier only.
extension DiskCache {
    /// The bytes and validators stored for `key`, with source `.disk`; nil for a miss or for a
    /// `type` without the disk tier.
    public func query(key: String, type: ImageCacheType) async throws -> CacheQueryResult? {
        try Task.checkCancellation()
        guard type.includesDisk, let hit = read(key: key) else { return nil }
        try Task.checkCancellation()
        return CacheQueryResult(entry: CacheEntry(data: hit.data, validators: hit.validators), source: .disk)
    }

    /// Stores `entry.data` and `entry.validators` for `.disk` and `.all`.
    ///
    /// The disk tier keeps bytes, not pixels, and does not encode (re-encoding is the manager's
    /// job). An entry without `data` therefore stores nothing, and removes any entry already on
    /// disk for `key`, since that one no longer matches what was stored.
    public func store(_ entry: CacheEntry, forKey key: String, type: ImageCacheType) async throws {
        guard type.includesDisk else { return }
        if let data = entry.data {
            try storeData(data, validators: entry.validators, forKey: key)
        } else {
            try removeData(forKey: key)
        }
    }

    /// Removes the entry for `key` for `.disk` and `.all` (read-only paths are untouched).
    public func remove(key: String, type: ImageCacheType) async throws {
        guard type.includesDisk else { return }
        try removeData(forKey: key)
    }

    /// `.disk` when an unexpired entry file for `key` exists (here or in a read-only path) and
    /// `type` includes the disk tier, else `.none`.
    public func contains(key: String, type: ImageCacheType) async -> ImageCacheType {
        type.includesDisk && containsData(forKey: key) ? .disk : .none
    }

    /// ``removeAll()`` for `.disk` and `.all`.
    public func clear(type: ImageCacheType) async throws {
        guard type.includesDisk else { return }
        try removeAll()
    }
}
