import Foundation

/// Options for one image load through the ``ImageManager``.
public struct ImageOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Try URLs that failed before instead of failing at once; a success clears the failure.
    public static let retryFailed = ImageOptions(rawValue: 1 << 0)
    /// Load behind normal-priority requests.
    public static let lowPriority = ImageOptions(rawValue: 1 << 1)
    /// Load ahead of queued requests.
    public static let highPriority = ImageOptions(rawValue: 1 << 2)
    /// Store only in memory, never on disk.
    public static let cacheMemoryOnly = ImageOptions(rawValue: 1 << 3)
    /// Decode previews from partial data while loading.
    public static let progressiveLoad = ImageOptions(rawValue: 1 << 4)
    /// Deliver the cached image and reload it, revalidating with ETag/Last-Modified.
    public static let refreshCached = ImageOptions(rawValue: 1 << 5)
    /// Send and store cookies.
    public static let handleCookies = ImageOptions(rawValue: 1 << 6)
    /// Accept invalid TLS certificates (testing only).
    public static let allowInvalidSSLCertificates = ImageOptions(rawValue: 1 << 7)
    /// Apply the transformer to every frame of a multi-frame image, not just the first.
    public static let transformAnimatedImage = ImageOptions(rawValue: 1 << 8)
    /// Deliver bytes without decoding: the result's image is nil and its data the loaded or
    /// cached bytes. A transformed or thumbnail load that is not cached yet decodes all the same,
    /// since its bytes exist only once it is transformed and stored (see ``ImageResult/data``).
    public static let avoidDecode = ImageOptions(rawValue: 1 << 9)
    /// Answer from the cache only; never load.
    public static let fromCacheOnly = ImageOptions(rawValue: 1 << 10)
    /// Skip the cache query; always load.
    public static let fromLoaderOnly = ImageOptions(rawValue: 1 << 11)
    /// Decode images over the pixel limit scaled down instead of refusing them, up to the ceiling
    /// on their source pixels (``ImageContext/scaleDownSourcePixelLimit``, by default 4 × the limit).
    public static let scaleDownLargeImages = ImageOptions(rawValue: 1 << 12)
    /// Query memory only; do not look on disk.
    public static let queryMemoryOnly = ImageOptions(rawValue: 1 << 13)
    /// Decode only the first frame of multi-frame images.
    public static let decodeFirstFrameOnly = ImageOptions(rawValue: 1 << 14)

    /// Names for the CLI's `--options` list.
    public static let namedOptions: [(String, ImageOptions)] = [
        ("retryFailed", .retryFailed), ("lowPriority", .lowPriority), ("highPriority", .highPriority),
        ("cacheMemoryOnly", .cacheMemoryOnly), ("progressiveLoad", .progressiveLoad),
        ("refreshCached", .refreshCached), ("handleCookies", .handleCookies),
        ("allowInvalidSSLCertificates", .allowInvalidSSLCertificates),
        ("transformAnimatedImage", .transformAnimatedImage), ("avoidDecode", .avoidDecode),
        ("fromCacheOnly", .fromCacheOnly), ("fromLoaderOnly", .fromLoaderOnly),
        ("scaleDownLargeImages", .scaleDownLargeImages), ("queryMemoryOnly", .queryMemoryOnly),
        ("decodeFirstFrameOnly", .decodeFirstFrameOnly),
    ]

    /// Parses a comma-separated list of option names (case-insensitive); nil if one is unknown.
    public init?(parsing list: String) {
        var result: ImageOptions = []
        for name in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !name.isEmpty {
            guard let match = Self.namedOptions.first(where: { $0.0.lowercased() == name }) else { return nil }
            result.insert(match.1)
        }
        self = result
    }
}

