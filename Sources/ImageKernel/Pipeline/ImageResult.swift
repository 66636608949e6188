import Foundation

/// The outcome of a successful load through the ``ImageManager``.
public struct ImageResult: Sendable {
    /// The decoded (and transformed) image; nil only with ``ImageOptions/avoidDecode``.
    public var image: Image?
    /// Encoded bytes of the delivered image, or nil: the bytes loaded or stored for *this* result
    /// (its ``cacheKey``), never the original's bytes for a transformed or thumbnail result.
    ///
    /// - **Loaded, untransformed, full size**: the bytes the loader delivered (with
    ///   ``ImageOptions/scaleDownLargeImages`` they decode to the source's full size; the image is
    ///   that source scaled down). A `cacheSerializer` may have put other bytes on disk; these are
    ///   still the loaded ones.
    /// - **Loaded, transformed or thumbnail** (or changed by the delegate's
    ///   ``ImageManagerDelegate/transformDownloadedImage(_:url:)``), and a new variant made from a
    ///   cached original (rule 8): the bytes stored for it under its own key, the context's
    ///   `cacheSerializer`'s or the coder registry's re-encode (PNG where there is alpha, else
    ///   JPEG); nil when none were made: results kept in memory only (``ImageOptions/cacheMemoryOnly``,
    ///   a `storeCacheType` without disk), no cache key, or an encode that failed.
    /// - **Memory hit** (``cacheType`` `.memory`): the bytes the memory tier keeps with the image,
    ///   which were stored for this key: nil from a ``TieredCache`` (its memory tier keeps images
    ///   only); from a ``MemoryCache`` used alone, the bytes the load that stored it reported.
    /// - **Disk hit** (`.disk`): the bytes the persistent tier holds under the key, the ones the
    ///   image was decoded from.
    /// - **Shared-tier hit** (`.disk` with ``isFromSharedCache``): likewise, the bytes the shared
    ///   tier held (now also on the nearer tiers).
    /// - **Animated**: loaded untransformed, the whole file with every frame; transformed, the
    ///   re-encode stored for it in an animated format (its own, else WebP, GIF or JPEG XL) with every
    ///   frame; nil when no registered coder encodes one (the result is then kept in memory only).
    /// - ``ImageOptions/avoidDecode``: the loaded or cached bytes of the key, with no image; a
    ///   transformed or thumbnail result not cached yet is decoded, transformed and stored first,
    ///   so its data is the bytes stored for it (or nil), never the loaded original.
    /// - A `refreshCached` reload answered "not modified" keeps the cached result's data.
    public var data: Data?
    /// Where the image came from: `.none` (loaded), `.memory` or `.disk`.
    public var cacheType: ImageCacheType
    /// The URL that was asked for.
    public var url: URL
    /// The cache key the result is stored under (nil when the key filter declined to cache).
    public var cacheKey: String?
    /// True when a `refreshCached` reload was answered "not modified": the image is the cached one.
    public var wasRevalidated: Bool
    /// True when a shared tier (``CacheQueryResult/isShared``) answered; ``cacheType`` is then `.disk`.
    public var isFromSharedCache: Bool
    /// The validators the source's response carried (its `ETag` and `Last-Modified`), kept with
    /// the original in the caches; nil when the loader or the cache entry has none.
    public var validators: CacheValidators?

    public init(
        image: Image?, data: Data?, cacheType: ImageCacheType, url: URL, cacheKey: String?, wasRevalidated: Bool = false,
        isFromSharedCache: Bool = false, validators: CacheValidators? = nil
    ) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
        self.url = url
        self.cacheKey = cacheKey
        self.wasRevalidated = wasRevalidated
        self.isFromSharedCache = isFromSharedCache
        self.validators = validators
    }
}

/// Something that happens during a load, before it completes.
public enum ImageLoadEvent: Sendable {
    /// Bytes received so far and the total (−1 when unknown).
    case progress(received: Int64, expected: Int64)
    /// A preview decoded from partial data (`progressiveLoad`).
    case preview(Image)
    /// With `refreshCached`: the cached image, delivered before the reload completes the operation.
    case cachedImage(ImageResult)
    /// Attempt `attempt` of the load failed with a transient `error`; the next attempt starts
    /// after `delay` (``RetryPolicy``). Progress starts again from zero with the next attempt.
    case retrying(attempt: Int, delay: Duration, error: ImageKernelError)
}
