import Foundation

/// A response the HTTP layer sends as it is.
public struct ProxyResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// Header fields in order (`Content-Length` included).
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: Data
    /// Where the result came from, for the request log: `memory`, `disk` (results cached here),
    /// `source-memory`/`source-disk`/`source-shared` (rendered from a cached original), `origin`
    /// (rendered from a fresh download), or `-`.
    public var cacheType: String

    public init(status: Int, headers: [(name: String, value: String)], body: Data, cacheType: String = "-") {
        self.status = status
        self.headers = headers
        self.body = body
        self.cacheType = cacheType
    }

    /// The error response for `error`: JSON, or the plain text of ``ProxyError/publicText``.
    public static func error(_ error: ProxyError) -> ProxyResponse {
        let body = error.publicText.map { Data($0.utf8) } ?? error.jsonBody
        var headers: [(name: String, value: String)] = [
            ("Content-Type", error.publicText == nil ? "application/json" : "text/plain"), ("Content-Length", "\(body.count)"),
            ("Cache-Control", "no-store"),
        ]
        if error.status == 503 { headers.append(("Retry-After", "1")) }
        return ProxyResponse(status: error.status, headers: headers, body: body)
    }

    /// The value of the first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
