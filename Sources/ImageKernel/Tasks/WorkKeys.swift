import Foundation

/// The identity of a plugged-in part for deciding whether two loads may share work: the object
/// for a class instance, else a fresh unique value (a value-type part or a closure cannot be
/// compared, so loads that carry one share nothing with other loads).
struct PartIdentity: Hashable, Sendable {
    private let id: ObjectIdentifier?
    private let unique: UInt64?

    private static let counter = Locked<UInt64>(0)

    private init(id: ObjectIdentifier?, unique: UInt64?) {
        self.id = id
        self.unique = unique
    }

    init(_ part: Any?) {
        guard let part else {
            self.init(id: nil, unique: nil)
            return
        }
        if type(of: part) is AnyClass {
            self.init(id: ObjectIdentifier(part as AnyObject), unique: nil)
        } else {
            self.init(id: nil, unique: Self.counter.withLock { $0 += 1; return $0 })
        }
    }

    /// A part the manager's own registry handed out: a class instance by object, a value by its
    /// type (the registry holds that one value for every load).
    init(registered part: Any) {
        if type(of: part) is AnyClass {
            self.init(part)
        } else {
            self.init(id: ObjectIdentifier(type(of: part) as Any.Type), unique: nil)
        }
    }

    /// An identity equal to no other.
    static func fresh() -> PartIdentity { PartIdentity(UniqueMarker()) }
    private struct UniqueMarker {}
}

/// Loads that share one result (rule 9): same final key, same result-shaping options and context.
struct ResultWorkKey: Hashable, Sendable {
    let key: String
    let options: ImageOptions
    let context: ContextSignature
}

/// The parts of an ``ImageContext`` that change what a load produces.
struct ContextSignature: Hashable, Sendable {
    var cache: PartIdentity
    var originalCache: PartIdentity
    var loader: PartIdentity
    var coder: PartIdentity
    /// Set for contexts that cannot be compared (a serializer closure, plugin-defined values).
    var unique: PartIdentity
    var thumbnail: PixelSize?
    /// Also in the final key, but that key may be nil (the key filter declined to cache).
    var transformerKey: String?
    var pixelLimit: Int?
    var scaleDownSourcePixelLimit: Int?
    var storeCacheType: ImageCacheType?
    var queryCacheType: ImageCacheType?
    var originalStoreCacheType: ImageCacheType?
    var originalQueryCacheType: ImageCacheType?
    var requestHeaders: [String: String]?
    var encodeOptions: EncodeOptions?
    var retryPolicy: RetryPolicy?

    init(_ context: ImageContext, transformer: (any ImageTransformer)?) {
        transformerKey = transformer?.key
        cache = PartIdentity(context.cache)
        originalCache = PartIdentity(context.originalCache)
        loader = PartIdentity(context.loader)
        coder = PartIdentity(context.coder)
        unique = context.cacheSerializer != nil || context.hasCustomValues ? .fresh() : PartIdentity(nil)
        thumbnail = context.thumbnailPixelSize
        pixelLimit = context.pixelLimit
        scaleDownSourcePixelLimit = context.scaleDownSourcePixelLimit
        storeCacheType = context.storeCacheType
        queryCacheType = context.queryCacheType
        originalStoreCacheType = context.originalStoreCacheType
        originalQueryCacheType = context.originalQueryCacheType
        requestHeaders = context.requestHeaders
        encodeOptions = context.encodeOptions
        retryPolicy = context.retryPolicy
    }
}

/// Loads that share one download: same URL, request, loader and loader options (but priority).
struct DownloadWorkKey: Hashable, Sendable {
    let request: ImageRequest
    let loader: PartIdentity
    let options: LoaderOptions
    let unique: PartIdentity
    /// Retried work stays one piece of work for all its callers, who share one policy.
    let retryPolicy: RetryPolicy
}

/// Cache queries that share one answer.
struct QueryWorkKey: Hashable, Sendable {
    let cache: PartIdentity
    let key: String
    let type: ImageCacheType
}
