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

/// Changes a response's body before callers get it (SDWebImage's downloader decryptor): decrypts,
/// unwraps or checks the bytes.
///
/// ## Implementation requirements
/// - **Once per transfer.** Called once for each successful transfer (an acceptable status and
///   a whole body; never for a 304 answering a conditional request or a failed transfer). Loads
///   coalesced onto the transfer all get the same result.
/// - **Thread.** Runs on the loader's driver thread, after the body arrived and before any caller
///   is completed: every transfer of the loader waits meanwhile, so keep it short and never block
///   or wait for another load of the same loader. Must be thread safe.
/// - **Errors.** Return nil to refuse the body: every caller of the transfer fails with an
///   ``ImageKernelError`` of code `bodyRejected` (permanent), carrying the response's headers. It must not throw or trap.
/// - **Progress.** With a body modifier configured, progress reports carry no chunks (the raw
///   bytes are not the image bytes): progressive decoding is off for that loader.
public protocol HTTPResponseBodyModifier: Sendable {
    /// The body to deliver for `response`, or nil to refuse it.
    func modified(_ body: Data, response: HTTPResponse) -> Data?
}

/// An ``HTTPResponseBodyModifier`` made from a closure.
public struct HTTPResponseBodyModifierBlock: HTTPResponseBodyModifier {
    private let body: @Sendable (Data, HTTPResponse) -> Data?
    /// A modifier that calls `body` with the response body and head.
    public init(_ body: @escaping @Sendable (Data, HTTPResponse) -> Data?) { self.body = body }
    public func modified(_ body: Data, response: HTTPResponse) -> Data? { self.body(body, response) }
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
