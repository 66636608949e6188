import Foundation

/// Turns a URL into a cache key.
///
/// ## Implementation requirements
/// - Pure and `Sendable`: the same URL always gives the same key; called from any thread.
/// - Return nil to say "do not cache this URL".
public protocol CacheKeyFilter: Sendable {
    func cacheKey(for url: URL) -> String?
}

/// The default filter: the absolute URL string.
public struct AbsoluteURLCacheKeyFilter: CacheKeyFilter {
    public init() {}
    public func cacheKey(for url: URL) -> String? { url.absoluteString }
}

/// A filter made from a closure.
public struct ClosureCacheKeyFilter: CacheKeyFilter {
    private let body: @Sendable (URL) -> String?
    public init(_ body: @escaping @Sendable (URL) -> String?) { self.body = body }
    public func cacheKey(for url: URL) -> String? { body(url) }
}

/// How the manager derives keys for transformed and thumbnail variants (SDWebImage's rules).
public enum CacheKey {
    /// `key` with `-<suffix>` inserted before the path extension: `a/b.png` → `a/b-<suffix>.png`.
    /// For URLs with a query the query stays at the end.
    public static func variant(of key: String, suffix: String) -> String {
        if let components = URLComponents(string: key), components.scheme != nil, components.scheme != "file" {
            var components = components
            let path = components.path
            let ext = (path as NSString).pathExtension
            if !ext.isEmpty {
                components.path = (path as NSString).deletingPathExtension + "-" + suffix + "." + ext
                if let rebuilt = components.string { return rebuilt }
            }
            return key + "-" + suffix
        }
        let ext = (key as NSString).pathExtension
        if !ext.isEmpty, !ext.contains("/") {
            return (key as NSString).deletingPathExtension + "-" + suffix + "." + ext
        }
        return key + "-" + suffix
    }

    /// The key of a transformed variant.
    public static func transformed(_ key: String, transformerKey: String) -> String {
        variant(of: key, suffix: transformerKey)
    }

    /// The key of a thumbnail variant: never the same as the full-size key.
    public static func thumbnail(_ key: String, size: PixelSize) -> String {
        variant(of: key, suffix: "Thumbnail(\(size.width)x\(size.height))")
    }
}
