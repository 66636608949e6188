import Foundation

/// Which sources the service may load: an allow-list of URL prefixes, and never loopback,
/// private, link-local or otherwise internal addresses unless an allowed prefix names such an
/// address itself (`http://127.0.0.1:8080/`, `http://localhost/`).
///
/// A prefix matches by parts, not by text: scheme, host (case-insensitive), port (default ports
/// filled in) and a path prefix, so `http://cdn.example.com@evil.test/` never passes as
/// `http://cdn.example.com`. Sources with user info, dot segments or encoded dots are refused.
/// A host name is resolved and refused when any of its addresses is internal (the same check
/// runs on every redirect target, which the service follows itself).
///
/// `s3://bucket/` allows one bucket (`s3://bucket/photos/` a key prefix in it): the bucket is the
/// prefix's host, compared exactly (S3 bucket names are case-sensitive), so `s3://src/` and
/// `s3://src` allow `src` and never `srcx`. Object stores are reached through the configured
/// endpoint, so no address check applies to them.
public struct OriginPolicy: Sendable {
    struct Prefix: Sendable, Equatable {
        var scheme: String
        var host: String
        var port: Int
        var path: String
        /// The prefix names an internal address or `localhost` itself.
        var namesInternalHost: Bool
    }

    let prefixes: [Prefix]
    private let resolve: @Sendable (String) -> [IPAddress]

    /// A policy allowing the given URL prefixes (`https://images.example.com/`, `http://127.0.0.1:8080/img/`).
    /// - Parameter resolver: the addresses of a host name, as text; nil resolves with getaddrinfo
    ///   (answers kept for a minute).
    /// - Throws: ``ProxyError`` naming the first prefix that is not an absolute http(s) URL.
    public init(allowedPrefixes: [String], resolver: (@Sendable (String) -> [String])? = nil) throws(ProxyError) {
        var parsed: [Prefix] = []
        for text in allowedPrefixes {
            guard let url = URL(string: text), let prefix = Self.parts(of: url) else {
                throw ProxyError(status: 500, code: "invalid_configuration", message: "\(text) is not an absolute http(s) URL prefix or s3://bucket/")
            }
            parsed.append(prefix)
        }
        prefixes = parsed
        if let resolver {
            resolve = { host in resolver(host).compactMap(IPAddress.init) }
        } else {
            let system = HostResolver()
            resolve = { host in system.addresses(of: host) }
        }
    }

    /// Whether an allowed prefix names a bucket (`s3://…`): the service loads `s3://` sources then.
    public var allowsS3: Bool { prefixes.contains { $0.scheme == Self.s3 } }

    /// Checks `url` against the allow-list and the address ranges.
    /// - Returns: the addresses checked for a host name (host → addresses), to pin the load to
    ///   (`HTTPLoader.PinnedAddresses`) so that a second resolution cannot answer differently;
    ///   empty for an address literal or an allowed internal host.
    /// - Throws: ``ProxyError`` 403 `origin_not_allowed`; 502 `dnsFailure` for a name that does
    ///   not resolve (it is not left for the loader to resolve again).
    @discardableResult
    public func check(_ url: URL) throws(ProxyError) -> [String: [String]] {
        let shown = String(url.absoluteString.prefix(200))
        guard url.user == nil, url.password == nil else { throw .originNotAllowed("\(shown): sources with user info are refused") }
        guard !Self.hasDotSegmentOrEncodedDotOrSlash(url.path(percentEncoded: true))
        else { throw .originNotAllowed("\(shown): dot segments and encoded dots or slashes are refused in source paths") }
        guard let parts = Self.parts(of: url) else { throw .originNotAllowed("\(shown) is not an absolute http(s) or s3 URL") }
        guard let prefix = prefixes.first(where: { $0.scheme == parts.scheme && $0.host == parts.host && $0.port == parts.port && parts.path.hasPrefix($0.path) })
        else { throw .originNotAllowed("\(shown) is not under an allowed origin") }
        if prefix.namesInternalHost || prefix.scheme == Self.s3 { return [:] }
        if let address = IPAddress(parts.host) {
            guard !address.isInternal else { throw .originNotAllowed("\(shown): \(parts.host) is an internal address") }
            return [:]
        }
        let addresses = resolve(parts.host)
        if let address = addresses.first(where: \.isInternal) {
            throw .originNotAllowed("\(shown): \(parts.host) resolves to the internal address \(address)")
        }
        guard !addresses.isEmpty else {
            throw ProxyError(status: 502, code: "dnsFailure", message: "\(parts.host) does not resolve")
        }
        return [parts.host: addresses.map(\.description)]
    }

    /// Whether `path` has a `.` or `..` segment, or `%2e` / `%2f` in either case. One pass over
    /// the bytes: Foundation's `lowercased` and `contains` took 7 µs of a cold request here.
    public static func hasDotSegmentOrEncodedDotOrSlash(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { bytes -> Bool in
            let slash = UInt8(ascii: "/"), dot = UInt8(ascii: "."), percent = UInt8(ascii: "%")
            var segmentStart = 0
            for i in 0...bytes.count {
                if i == bytes.count || bytes[i] == slash {
                    let length = i - segmentStart
                    if length == 1 && bytes[segmentStart] == dot { return true }
                    if length == 2 && bytes[segmentStart] == dot && bytes[segmentStart + 1] == dot { return true }
                    segmentStart = i + 1
                } else if bytes[i] == percent, i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "2") {
                    switch bytes[i + 2] | 0x20 {  // ASCII lower case
                    case UInt8(ascii: "e"), UInt8(ascii: "f"): return true
                    default: break
                    }
                }
            }
            return false
        }
    }

    static let s3 = "s3"

    static func parts(of url: URL) -> Prefix? {
        if url.scheme?.lowercased() == s3 { return bucketParts(of: url) }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", var host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        var path = url.path(percentEncoded: true)
        if path.isEmpty { path = "/" }
        let namesInternal = host == "localhost" || host.hasSuffix(".localhost") || (IPAddress(host)?.isInternal ?? false)
        return Prefix(scheme: scheme, host: host, port: port, path: path, namesInternalHost: namesInternal)
    }

    /// An `s3://bucket/key-prefix` as parts: the bucket exactly as written (no port, no user info).
    private static func bucketParts(of url: URL) -> Prefix? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let bucket = components.host, !bucket.isEmpty,
              components.port == nil
        else { return nil }
        var path = components.percentEncodedPath
        if path.isEmpty { path = "/" }
        return Prefix(scheme: s3, host: bucket, port: 0, path: path, namesInternalHost: false)
    }
}
