import Foundation
import ImageKernel

/// `ImageCache` conformance: the disk tier only.
extension DiskCache {
    /// The bytes and validators stored for `key`, with source `.disk`; nil for a miss or for a
    /// `type` without the disk tier.
    /// - Throws: ``ImageKernelError`` with code `cancelled` when the task was cancelled.
    public func query(key: String, type: ImageCacheType) async throws(ImageKernelError) -> CacheQueryResult? {
        try ImageKernelError.checkCancellation(.cache, plugin: Self.pluginName)
        guard type.includesDisk, let hit = read(key: key) else { return nil }
        try ImageKernelError.checkCancellation(.cache, plugin: Self.pluginName)
        return CacheQueryResult(entry: CacheEntry(data: hit.data, validators: hit.validators), source: .disk)
    }

    /// Stores the entry's bytes and validators for `.disk` and `.all`.
    ///
    /// The disk tier keeps bytes, not pixels. An entry with bytes is stored as it is (its image,
    /// if any, is not written). An entry with an image but no bytes is encoded with
    /// ``Configuration/imageEncoder`` and the result is stored.
    /// - Throws: ``ImageKernelError`` at stage `.cache`, plugin `"CacheDisk"`: `unsupported` for
    ///   an image-only entry when no encoder is configured, the encoder's code when encoding
    ///   fails, `invalidArgument` for an entry with neither image nor bytes, and the errors of
    ///   ``storeData(_:validators:forKey:)``. Whenever it throws, the entry already on disk for
    ///   `key` stays as it was.
    public func store(_ entry: CacheEntry, forKey key: String, type: ImageCacheType) async throws(ImageKernelError) {
        guard type.includesDisk else { return }
        let bytes = try entry.persistentBytes(forKey: key, plugin: Self.pluginName, place: "on disk", encode: configuration.imageEncoder?.encode)
        try storeData(bytes, validators: entry.validators, forKey: key)
    }

    /// Removes the entry for `key` for `.disk` and `.all` (read-only paths are untouched).
    public func remove(key: String, type: ImageCacheType) async throws(ImageKernelError) {
        guard type.includesDisk else { return }
        try removeData(forKey: key)
    }

    /// `.disk` when an unexpired entry file for `key` exists (here or in a read-only path) and
    /// `type` includes the disk tier, else `.none`.
    public func contains(key: String, type: ImageCacheType) async -> ImageCacheType {
        type.includesDisk && containsData(forKey: key) ? .disk : .none
    }

    /// ``removeAll()`` for `.disk` and `.all`, on the cache's maintenance queue: the calling task
    /// is suspended, never a thread of the cooperative pool blocked.
    public func clear(type: ImageCacheType) async throws(ImageKernelError) {
        guard type.includesDisk else { return }
        try await onMaintenanceQueue { self.sweepResult() }.get()
    }
}
