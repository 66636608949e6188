import Digests
import Foundation

/// Signs requests with AWS Signature Version 4 (header form).
///
/// The canonical request is built from the method, the path exactly as sent (S3 paths are encoded
/// once, never twice), the query sorted by encoded name then value, every header given (names
/// lower-cased, values trimmed, inner runs of spaces collapsed) and the payload hash, which is also
/// sent as `x-amz-content-sha256` (S3 and RADOS Gateway refuse requests without it). A session
/// token is sent and signed as `x-amz-security-token`.
public struct S3Signer: Sendable {
    /// The hash of an empty body (`SHA256("")`), for GET, HEAD and DELETE.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// Sent instead of a hash when the body is not signed.
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// The credentials requests are signed with.
    public var credentials: S3Credentials
    /// The region of the scope (`us-east-1`, …).
    public var region: String
    /// The service of the scope: `s3` for S3.
    public var service: String

    /// A signer for one region and service.
    public init(credentials: S3Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The headers to add to a request: `Authorization`, `x-amz-date`, `x-amz-content-sha256`
    /// and, with a session token, `x-amz-security-token`.
    ///
    /// - Parameters:
    ///   - method: `GET`, `PUT`, …
    ///   - url: the URL as it will be sent; its percent-encoded path is used as it is.
    ///   - headers: the headers to sign besides `host` (which comes from `url`), for example `range`.
    ///   - payloadHash: the body's hex SHA-256, ``emptyPayloadHash`` or ``unsignedPayload``.
    ///   - date: the signing time.
    ///   - includeContentHash: whether `x-amz-content-sha256` is added and signed (always for S3).
    public func signedHeaders(
        method: String, url: URL, headers: [String: String] = [:], payloadHash: String = S3Signer.emptyPayloadHash,
        date: Date = Date(), includeContentHash: Bool = true
    ) -> [String: String] {
        let amzDate = Self.amzDate(date)
        var added: [String: String] = ["x-amz-date": amzDate]
        if includeContentHash { added["x-amz-content-sha256"] = payloadHash }
        if let token = credentials.sessionToken { added["x-amz-security-token"] = token }
        var toSign = added
        for (name, value) in headers { toSign[name.lowercased()] = value }
        toSign["host"] = Self.hostHeader(url)
        let scope = "\(amzDate.prefix(8))/\(region)/\(service)/aws4_request"
        let canonical = canonicalRequest(method: method, url: url, headers: toSign, payloadHash: payloadHash)
        let stringToSign = "AWS4-HMAC-SHA256\n\(amzDate)\n\(scope)\n\(SHA256.hash(utf8: canonical.request).hex)"
        let signature = HMACSHA256.authenticationCode(for: Array(stringToSign.utf8), key: signingKey(day: String(amzDate.prefix(8)))).hex
        added["Authorization"] = "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(canonical.signedHeaders), Signature=\(signature)"
        return added
    }

    /// The canonical request and the `SignedHeaders` list for `headers` (which must include `host`).
    public func canonicalRequest(method: String, url: URL, headers: [String: String], payloadHash: String) -> (request: String, signedHeaders: String) {
        let normalized = headers.map { ($0.key.lowercased(), Self.normalizeValue($0.value)) }.sorted { $0.0 < $1.0 }
        let signed = normalized.map(\.0).joined(separator: ";")
        let headerLines = normalized.map { "\($0.0):\($0.1)\n" }.joined()
        let path = Self.rawPath(url)
        let request = [method, path.isEmpty ? "/" : path, Self.canonicalQuery(url), headerLines, signed, payloadHash].joined(separator: "\n")
        return (request, signed)
    }

    /// The derived signing key for a day (`yyyyMMdd`).
    func signingKey(day: String) -> DigestBytes {
        var key = HMACSHA256.authenticationCode(for: Array(day.utf8), key: Array("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [region, service, "aws4_request"] {
            key = HMACSHA256.authenticationCode(for: Array(part.utf8), key: key)
        }
        return key
    }

    /// `Host` as curl sends it: the name, with the port when it is not the scheme's default.
    static func hostHeader(_ url: URL) -> String {
        let host = url.host ?? ""
        guard let port = url.port else { return host }
        let isDefault = (url.scheme == "http" && port == 80) || (url.scheme == "https" && port == 443)
        return isDefault ? host : "\(host):\(port)"
    }

    /// The path exactly as written in the URL (percent-encoding kept).
    static func rawPath(_ url: URL) -> String {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
    }

    /// The query's pairs, each name and value decoded then encoded as SigV4 asks, sorted.
    static func canonicalQuery(_ url: URL) -> String {
        guard let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery, !query.isEmpty else { return "" }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: true).map { item -> (String, String) in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = S3URIEncoding.decodeQueryComponent(String(parts[0]))
            let value = parts.count > 1 ? S3URIEncoding.decodeQueryComponent(String(parts[1])) : ""
            return (S3URIEncoding.encode(name), S3URIEncoding.encode(value))
        }
        return pairs.sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    static func normalizeValue(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
    }

    static func amzDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ v: Int?) -> String { let v = v ?? 0; return v < 10 ? "0\(v)" : "\(v)" }
        return "\(c.year ?? 1970)\(two(c.month))\(two(c.day))T\(two(c.hour))\(two(c.minute))\(two(c.second))Z"
    }

    /// The hex SHA-256 of a body, for ``signedHeaders(method:url:headers:payloadHash:date:includeContentHash:)``.
    public static func payloadHash(_ body: Data) -> String { SHA256.hash(body).hex }
}
