/// Options for a loader, derived from ``ImageOptions`` by the manager.
public struct LoaderOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Queue behind normal requests.
    public static let lowPriority = LoaderOptions(rawValue: 1 << 0)
    /// Jump ahead of queued requests.
    public static let highPriority = LoaderOptions(rawValue: 1 << 1)
    /// Deliver each new chunk in progress for progressive decoding.
    public static let progressiveLoad = LoaderOptions(rawValue: 1 << 2)
    /// Let the source's own caching rules apply (revalidate instead of refetching blindly).
    public static let useCachedResponse = LoaderOptions(rawValue: 1 << 3)
    /// A cached image exists and is being refreshed: a "not modified" answer yields no new image.
    public static let ignoreCachedResponse = LoaderOptions(rawValue: 1 << 4)
    /// Send and store cookies.
    public static let handleCookies = LoaderOptions(rawValue: 1 << 5)
    /// Accept invalid TLS certificates (testing only).
    public static let allowInvalidSSLCertificates = LoaderOptions(rawValue: 1 << 6)
    /// Decode large images scaled down.
    public static let scaleDownLargeImages = LoaderOptions(rawValue: 1 << 7)
    /// Return bytes only; do not decode.
    public static let avoidDecode = LoaderOptions(rawValue: 1 << 8)

    /// SDWebImageManager's mapping of image options to loader options. With `refreshCached` and a
    /// cached image, progressive loading is turned off and cached responses are ignored.
    public init(_ options: ImageOptions, hasCachedImage: Bool) {
        var result: LoaderOptions = []
        if options.contains(.lowPriority) { result.insert(.lowPriority) }
        if options.contains(.highPriority) { result.insert(.highPriority) }
        if options.contains(.progressiveLoad) { result.insert(.progressiveLoad) }
        if options.contains(.refreshCached) { result.insert(.useCachedResponse) }
        if options.contains(.handleCookies) { result.insert(.handleCookies) }
        if options.contains(.allowInvalidSSLCertificates) { result.insert(.allowInvalidSSLCertificates) }
        if options.contains(.scaleDownLargeImages) { result.insert(.scaleDownLargeImages) }
        if options.contains(.avoidDecode) { result.insert(.avoidDecode) }
        if hasCachedImage && options.contains(.refreshCached) {
            result.remove(.progressiveLoad)
            result.insert(.ignoreCachedResponse)
        }
        self = result
    }
}
