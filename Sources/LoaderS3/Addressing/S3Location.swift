import Foundation
import ImageKernel

/// An object named by an `s3://bucket/key[?versionId=…]` URL.
///
/// The key is the URL's path without its first `/`, percent-decoded: `s3://b/with%20space.jpg`
/// names `with space.jpg`, `plus%2Bsign.png` names `plus+sign.png`, `q%3Fmark.jpg` names
/// `q?mark.jpg`, and UTF-8 keys may be written encoded or as they are.
public struct S3Location: Sendable, Hashable {
    /// The bucket.
    public var bucket: String
    /// The object key, decoded.
    public var key: String
    /// The object version to read, nil for the current one.
    public var versionID: String?

    /// A location from its parts.
    public init(bucket: String, key: String, versionID: String? = nil) {
        self.bucket = bucket
        self.key = key
        self.versionID = versionID
    }

    /// Parses an `s3://` URL.
    /// - Throws: ``ImageKernel/ImageKernelError`` with code `invalidURL` when the scheme is not
    ///   `s3`, the bucket is missing or not a valid bucket name, or the key is empty.
    public init(url: URL) throws(ImageKernelError) {
        guard url.scheme?.lowercased() == "s3", let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw .s3(.invalidURL, "not an s3:// URL: \(url.absoluteString)")
        }
        guard let bucket = components.host, Self.isValidBucket(bucket) else {
            throw .s3(.invalidURL, "no valid bucket name in \(url.absoluteString)")
        }
        let encodedPath = components.percentEncodedPath
        guard encodedPath.count > 1, let key = String(encodedPath.dropFirst()).removingPercentEncoding, !key.isEmpty else {
            throw .s3(.invalidURL, "no object key in \(url.absoluteString)")
        }
        self.bucket = bucket
        self.key = key
        versionID = components.queryItems?.first { $0.name == "versionId" }?.value
    }

    /// The `s3://` URL of this location (key encoded, `/` kept).
    public var url: URL {
        var text = "s3://\(bucket)/\(S3URIEncoding.encode(key, keepSlash: true))"
        if let versionID { text += "?versionId=\(S3URIEncoding.encode(versionID))" }
        return URL(string: text)!
    }

    /// Bucket names as S3 allows them: 3–63 of `a–z 0–9 . -` (upper case and `_` too, as older
    /// buckets and S3-compatible stores have them), never a character that could change the URL.
    static func isValidBucket(_ name: String) -> Bool {
        (1...255).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_")
        }
    }
}

/// Where requests for a bucket go: AWS's regional endpoint or a given one, path-style or
/// virtual-host.
public struct S3Endpoint: Sendable, Hashable {
    /// How the bucket is named in requests.
    public enum Addressing: Sendable, Hashable {
        /// `https://endpoint/bucket/key`: the default with a given endpoint (S3-compatible stores).
        case path
        /// `https://bucket.endpoint/key`: AWS's default.
        case virtualHost
    }

    /// The endpoint (scheme, host, port, no path), or nil for AWS's `https://s3.REGION.amazonaws.com`.
    public var url: URL?
    /// The addressing style; nil picks path-style with a given endpoint and virtual-host on AWS
    /// (path-style there too for bucket names with dots, which break TLS names).
    public var addressing: Addressing?

    /// An endpoint; both nil is AWS.
    public init(url: URL? = nil, addressing: Addressing? = nil) {
        self.url = url
        self.addressing = addressing
    }

    /// The HTTP(S) URL of an object (or, with an empty key, of the bucket) in `region`.
    public func requestURL(bucket: String, key: String, query: String? = nil, region: String) -> URL {
        let base: URLComponents
        if let url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            base = components
        } else {
            base = URLComponents(string: "https://s3.\(region).amazonaws.com")!
        }
        let style = addressing ?? (url == nil && !bucket.contains(".") ? .virtualHost : .path)
        var host = base.host ?? "localhost"
        var path = "/" + S3URIEncoding.encode(key, keepSlash: true)
        switch style {
        case .virtualHost: host = "\(bucket).\(host)"
        case .path: path = "/\(bucket)" + (key.isEmpty ? "" : path)
        }
        var text = "\(base.scheme ?? "https")://\(host)"
        if let port = base.port { text += ":\(port)" }
        text += path
        if let query, !query.isEmpty { text += "?\(query)" }
        return URL(string: text)!
    }
}
