import Foundation

/// Rule 5 and 8: what goes into the cache after a load.
extension ImageManager {
    /// Stores a loaded (and maybe transformed) image.
    ///
    /// Untransformed results keep their original bytes. Transformed or thumbnail results are cached
    /// under their own key with re-encoded bytes (the context's serializer, else PNG when there is
    /// alpha, else JPEG), and the original bytes go under the original key so that another
    /// transform needs no download. Storage failures are logged, never thrown: the load succeeded.
    func store(_ image: Image, originalData: Data?, validators: CacheValidators?, plan: LoadPlan, storeOriginal: Bool) async {
        guard let key = plan.key else { return }
        let storeType = plan.storeType
        if !plan.isVariant, let originalData {
            await storeEntry(CacheEntry(image: image, data: originalData, validators: validators), key: key, plan: plan, type: storeType)
            return
        }
        if storeOriginal, plan.isVariant, let originalData, let originalKey = plan.originalKey, originalKey != key {
            var originalType = plan.context.originalStoreCacheType ?? .disk
            if plan.options.contains(.cacheMemoryOnly), originalType.includesDisk {
                originalType = originalType == .all ? .memory : .none
            }
            if originalType != .none {
                let cache = plan.context.originalCache ?? plan.cache
                await storeEntry(CacheEntry(data: originalData, validators: validators), key: originalKey, in: cache, type: originalType)
            }
        }
        var entry = CacheEntry(image: image)
        var type = storeType
        if storeType.includesDisk {
            if let data = serialize(image, originalData: originalData, plan: plan) {
                entry.data = data
            } else {
                type = storeType.includesMemory ? .memory : .none
            }
        }
        guard type != .none else { return }
        await storeEntry(entry, key: key, plan: plan, type: type)
    }

    func storeEntry(_ entry: CacheEntry, key: String?, plan: LoadPlan, memoryAllowed: Bool) async {
        var type = plan.storeType
        if !memoryAllowed { type = type.includesDisk ? .disk : .none }
        guard let key, type != .none else { return }
        await storeEntry(entry, key: key, plan: plan, type: type)
    }

    private func storeEntry(_ entry: CacheEntry, key: String, plan: LoadPlan, type: ImageCacheType) async {
        await storeEntry(entry, key: key, in: plan.cache, type: type)
    }

    private func storeEntry(_ entry: CacheEntry, key: String, in cache: any ImageCache, type: ImageCacheType) async {
        guard type != .none else { return }
        do {
            try await cache.store(entry, forKey: key, type: type)
        } catch {
            configuration.metrics?.storeFailures.increment()
            configuration.logger?.warning("cache store failed", metadata: ["key": "\(key)", "error": "\(error)"])
        }
    }

    /// Bytes for a transformed image: the context's serializer, else re-encode (PNG with alpha, else JPEG).
    private func serialize(_ image: Image, originalData: Data?, plan: LoadPlan) -> Data? {
        if let serializer = plan.context.cacheSerializer { return serializer(image, originalData, plan.url) }
        let format: ImageFormat = image.pixelFormat.hasAlpha ? .png : .jpeg
        let options = plan.context.encodeOptions ?? configuration.encodeOptions
        do {
            return try configuration.coders.encode(image, as: format, options: options)
        } catch {
            configuration.logger?.debug("no bytes for the disk cache", metadata: ["format": "\(format)", "error": "\(error)"])
            return nil
        }
    }
}
