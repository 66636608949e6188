import Foundation

/// Rules 5 and 8: what goes into the cache after a load, and the bytes each result reports.
///
/// - The context's `cacheSerializer` decides what reaches the disk tier for every decoded result
///   it is given, untransformed loads included (SDWebImage's rule); returning nil keeps that result
///   off disk (memory tiers still get the image).
/// - Without a serializer an untransformed load keeps the bytes it loaded; a transformed or
///   thumbnail result is re-encoded through the coder registry (PNG with alpha, else JPEG; an
///   animation in an animated format with all its frames, or kept off disk when no coder has one).
/// - A transformed or thumbnail result reports as its ``ImageResult/data`` the bytes stored for it,
///   or nil — never the original's bytes.
/// - Storage failures are logged and counted, never thrown: the load itself succeeded.
extension ImageManager {
    /// Stores an untransformed, full-size result under its key. Returns the bytes it reports: the
    /// loaded ones.
    func storeOriginalResult(_ image: Image, loaded: LoadResult, plan: LoadPlan) async -> Data? {
        guard let key = plan.key else { return loaded.data }
        var type = plan.storeType
        var entry = CacheEntry(image: image, data: loaded.data, validators: loaded.validators)
        if type.includesDisk, let serializer = plan.context.cacheSerializer {
            entry.data = serializer(image, loaded.data, plan.url)
            if entry.data == nil { type = type.includesMemory ? .memory : .none }
        }
        await storeEntry(entry, key: key, in: plan.cache, type: type)
        return loaded.data
    }

    /// Stores a transformed or thumbnail result under its own key. Returns the bytes stored for
    /// it, or nil when none were.
    func storeVariant(_ image: Image, originalData: Data?, validators: CacheValidators?, plan: LoadPlan) async -> Data? {
        guard let key = plan.key else { return nil }
        var type = plan.storeType
        var entry = CacheEntry(image: image)
        if type.includesDisk {
            entry.data = serialize(image, originalData: originalData, plan: plan)
            if entry.data == nil { type = type.includesMemory ? .memory : .none }
        }
        await storeEntry(entry, key: key, in: plan.cache, type: type)
        return entry.data
    }

    /// Rule 8: keeps the original of a transformed or thumbnail load under the original key, in
    /// the tiers `originalStoreCacheType` names (default disk): bytes for a persistent tier, the
    /// decoded original image for a memory tier. A thumbnail load has no full-size image; asking
    /// for the original in memory then costs one full decode, done only for that request.
    func storeOriginal(decoded: Image?, loaded: LoadResult, plan: LoadPlan) async {
        guard plan.isVariant, let originalKey = plan.originalKey, originalKey != plan.key else { return }
        var type = plan.context.originalStoreCacheType ?? .disk
        if plan.options.contains(.cacheMemoryOnly), type.includesDisk { type = type == .all ? .memory : .none }
        guard type != .none else { return }
        var entry = CacheEntry(validators: loaded.validators)
        if type.includesMemory || plan.context.cacheSerializer != nil {
            entry.image = decoded ?? (try? decode(loaded.data, plan: plan, thumbnail: nil))
        }
        if type.includesDisk {
            if let serializer = plan.context.cacheSerializer, let original = entry.image {
                entry.data = serializer(original, loaded.data, plan.url)
            } else {
                entry.data = loaded.data
            }
            if entry.data == nil { type = type.includesMemory ? .memory : .none }
        }
        if !type.includesMemory { entry.image = nil }
        await storeEntry(entry, key: originalKey, in: plan.context.originalCache ?? plan.cache, type: type)
    }

    func storeEntry(_ entry: CacheEntry, key: String, in cache: any ImageCache, type: ImageCacheType) async {
        guard type != .none else { return }
        do {
            try await cache.store(entry, forKey: key, type: type)
        } catch {
            configuration.metrics?.storeFailures.increment()
            configuration.logger?.warning("cache store failed", metadata: ["key": "\(key)", "error": "\(error)"])
        }
    }

    /// Formats that hold every frame of an animation, in the order a transformed animation is
    /// re-encoded for the disk cache (its own format first when it is one of them).
    static let animationCacheFormats: [ImageFormat] = [.webp, .gif, .jxl]

    /// The format a transformed image is re-encoded in for the disk cache: an animation keeps its
    /// frames in its source's animated format (else WebP, else GIF, else JPEG XL) where a coder can
    /// encode it; nil when no coder can, so that a still of frame 0 never reaches disk under the
    /// animation's key. A still image: PNG where there is alpha, else JPEG.
    func cacheFormat(for image: Image) -> ImageFormat? {
        guard image.isAnimated else { return image.pixelFormat.hasAlpha ? .png : .jpeg }
        let preferred = Self.animationCacheFormats.contains(image.sourceFormat) ? [image.sourceFormat] : []
        return (preferred + Self.animationCacheFormats).first { configuration.coders.coder(forEncoding: $0) != nil }
    }

    /// Bytes for a transformed image: the context's serializer, else a re-encode in
    /// ``cacheFormat(for:)`` (nil when there is none: the result stays in memory only).
    private func serialize(_ image: Image, originalData: Data?, plan: LoadPlan) -> Data? {
        if let serializer = plan.context.cacheSerializer { return serializer(image, originalData, plan.url) }
        guard let format = cacheFormat(for: image) else {
            configuration.logger?.notice(
                "no coder encodes an animation: the transformed result is kept off disk",
                metadata: ["frames": "\(image.frameCount)"])
            return nil
        }
        let options = plan.context.encodeOptions ?? configuration.encodeOptions
        do {
            return try configuration.coders.encode(image, as: format, options: options)
        } catch {
            configuration.metrics?.storeFailures.increment()
            configuration.logger?.warning("no bytes for the disk cache", metadata: ["format": "\(format)", "error": "\(error)"])
            return nil
        }
    }
}
