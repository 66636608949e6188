import Foundation
import ImageKernel

/// A cache with only a persistent-style tier: it keeps bytes and validators (no images), answers
/// `.disk`, and ignores `.memory` — the shape of a disk cache, without touching the disk. It has
/// no encoder: an entry without bytes throws `unsupported` and leaves the old entry.
final class DataOnlyCache: ImageCache, Sendable {
    private let entries = Locked<[String: CacheEntry]>([:])

    var name: String { "DataOnlyCache" }

    func query(key: String, type: ImageCacheType) async throws(ImageKernelError) -> CacheQueryResult? {
        try ImageKernelError.checkCancellation(.cache, plugin: name)
        guard type.includesDisk, let entry = entries.withLock({ $0[key] }) else { return nil }
        return CacheQueryResult(entry: entry, source: .disk)
    }

    func store(_ entry: CacheEntry, forKey key: String, type: ImageCacheType) async throws(ImageKernelError) {
        guard type.includesDisk else { return }
        guard let data = entry.data else {
            throw ImageKernelError(stage: .cache, plugin: name, code: .unsupported, message: "keeps bytes only and cannot encode an image")
        }
        entries.withLock { $0[key] = CacheEntry(data: data, validators: entry.validators) }
    }

    func remove(key: String, type: ImageCacheType) async throws(ImageKernelError) {
        guard type.includesDisk else { return }
        _ = entries.withLock { $0.removeValue(forKey: key) }
    }

    func contains(key: String, type: ImageCacheType) async -> ImageCacheType {
        type.includesDisk && entries.withLock({ $0[key] != nil }) ? .disk : .none
    }

    func clear(type: ImageCacheType) async throws(ImageKernelError) {
        guard type.includesDisk else { return }
        entries.withLock { $0.removeAll() }
    }
}
