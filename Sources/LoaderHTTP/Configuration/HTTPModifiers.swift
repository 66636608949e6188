import Foundation

/// A request as ``HTTPLoader`` is about to send it.
public struct HTTPRequest: Sendable, Hashable {
    /// The URL to fetch (`http` or `https`).
    public var url: URL
    /// Headers to send, after merging and filtering. An empty value removes the header.
    public var headers: [String: String]

    /// A request for `url` with these headers.
    public init(url: URL, headers: [String: String] = [:]) {
        self.url = url
        self.headers = headers
    }
}

/// A response's head (status and headers), before its body is read.
public struct HTTPResponse: Sendable, Hashable {
    /// The final URL after redirects.
    public var url: URL
    /// The HTTP status.
    public var statusCode: Int
    /// The response headers, names lower-cased; repeated headers joined with ", ".
    public var headers: [String: String]

    /// A response head.
    public init(url: URL, statusCode: Int, headers: [String: String] = [:]) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
    }
}

/// Changes requests before ``HTTPLoader`` sends them (SDWebImage's request modifier).
///
/// Called on the task that called `load`, once per load, before same-URL coalescing: two loads
/// share a transfer only when their modified requests are equal. Must be thread safe.
public protocol HTTPRequestModifier: Sendable {
    /// The request to send, or nil to refuse the load (it fails with `downloadRefused`, which is
    /// not a failure of the URL and is never blacklisted).
    func modified(_ request: HTTPRequest) -> HTTPRequest?
}

/// Changes responses when their headers arrived (SDWebImage's response modifier).
///
/// Called once per transfer on the loader's driver thread, before the status is checked, so it
/// can e.g. accept a status. Keep it short; it must not block. Must be thread safe.
public protocol HTTPResponseModifier: Sendable {
    /// The response to use, or nil to refuse it (the load fails with `invalidResponse`).
    func modified(_ response: HTTPResponse) -> HTTPResponse?
}

/// An ``HTTPRequestModifier`` made from a closure.
public struct HTTPRequestModifierBlock: HTTPRequestModifier {
    private let body: @Sendable (HTTPRequest) -> HTTPRequest?
    /// A modifier that calls `body`.
    public init(_ body: @escaping @Sendable (HTTPRequest) -> HTTPRequest?) { self.body = body }
    public func modified(_ request: HTTPRequest) -> HTTPRequest? { body(request) }
}

/// An ``HTTPResponseModifier`` made from a closure.
public struct HTTPResponseModifierBlock: HTTPResponseModifier {
    private let body: @Sendable (HTTPResponse) -> HTTPResponse?
    /// A modifier that calls `body`.
    public init(_ body: @escaping @Sendable (HTTPResponse) -> HTTPResponse?) { self.body = body }
    public func modified(_ response: HTTPResponse) -> HTTPResponse? { body(response) }
}
