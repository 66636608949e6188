import Foundation

/// The outcome of a successful load through the ``ImageManager``.
public struct ImageResult: Sendable {
    /// The decoded (and transformed) image; nil only with ``ImageOptions/avoidDecode``.
    public var image: Image?
    /// The original encoded bytes when known (loaded or read from a cache tier that keeps bytes).
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
