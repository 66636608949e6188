import Foundation

/// Typed per-request overrides of the manager's parts and settings.
///
/// Every property is optional; nil means "use the manager's". Plugins can carry their own values
/// with ``subscript(_:)`` and an ``ImageContextKey``.
public struct ImageContext: Sendable {
    /// Use this cache instead of the manager's.
    public var cache: (any ImageCache)?
    /// Keep originals of transformed images in this cache (DESIGN rule 8); default: the main cache.
    public var originalCache: (any ImageCache)?
    /// Use this loader instead of asking the registry.
    public var loader: (any ImageLoader)?
    /// Use this coder instead of asking the registry.
    public var coder: (any ImageCoder)?
    /// Apply this transformer after decoding.
    public var transformer: (any ImageTransformer)?
    /// Derive the cache key with this filter.
    public var cacheKeyFilter: (any CacheKeyFilter)?
    /// Decode to this size (and cache under a thumbnail key).
    public var thumbnailPixelSize: PixelSize?
    /// Refuse images whose header declares more pixels than this.
    public var pixelLimit: Int?
    /// The most source pixels a scale-down (``ImageOptions/scaleDownLargeImages``) may read; see
    /// ``DecodeOptions/scaleDownSourcePixelLimit``.
    public var scaleDownSourcePixelLimit: Int?
    /// Where results are stored (default `.all`; `.memory` with `cacheMemoryOnly`).
    public var storeCacheType: ImageCacheType?
    /// Where the cache is queried (default `.all`).
    public var queryCacheType: ImageCacheType?
    /// Where untransformed originals of transformed loads are stored (default `.disk`; `.none` keeps none).
    public var originalStoreCacheType: ImageCacheType?
    /// Where originals are looked for before loading a transformed image (default `.disk`).
    public var originalQueryCacheType: ImageCacheType?
    /// Turns a transformed image into bytes for the disk cache; default: re-encode through the
    /// registry, PNG when the image has alpha, else JPEG.
    public var cacheSerializer: (@Sendable (Image, Data?, URL) -> Data?)?
    /// Extra request headers for this load.
    public var requestHeaders: [String: String]?
    /// Options passed to the coder on encode when re-encoding for the cache.
    public var encodeOptions: EncodeOptions?
    /// Deliver colour-managed pixels: converted through the manager's
    /// ``ImageManager/Configuration/colorConverter`` to this conversion's target (sRGB, or a
    /// profile), cached under their own key. Nil means the configuration's
    /// (``ImageManager/Configuration/colorConversion``, itself nil by default: pixels as decoded,
    /// with their ICC profile or CICP description). Without a registered converter it is ignored.
    public var colorConversion: ColorConversion?
    /// How transient load failures are retried; nil means the manager's
    /// (``ImageManager/Configuration/retryPolicy``). Loads share work only with loads of the same
    /// policy.
    public var retryPolicy: RetryPolicy?

    /// The live priority of the shared load this request belongs to, set by the manager for the
    /// loader (see ``LoadPriorityHandle``); loaders may observe it to reorder their queues.
    public var loadPriority: LoadPriorityHandle?

    private var custom: [ObjectIdentifier: any Sendable] = [:]
    /// Whether plugin-defined values are set (such contexts cannot be compared for sharing work).
    var hasCustomValues: Bool { !custom.isEmpty }

    public init() {}

    /// A plugin-defined value.
    public subscript<Key: ImageContextKey>(_ key: Key.Type) -> Key.Value? {
        get { custom[ObjectIdentifier(key)] as? Key.Value }
        set { custom[ObjectIdentifier(key)] = newValue }
    }
}

/// A key for plugin-defined values in an ``ImageContext``.
public protocol ImageContextKey {
    associatedtype Value: Sendable
}
