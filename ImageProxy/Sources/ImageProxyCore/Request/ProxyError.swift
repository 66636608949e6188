import Foundation
import ImageKernel

/// A failed proxy request: the HTTP status and the JSON body `{"error": code, "message": …}`.
///
/// Codes are the kernel's ``ImageKernelError/Code`` raw values where the kernel failed
/// (`not_found`, `pixel_limit_exceeded`, `corrupt_data`, …) and the proxy's own otherwise
/// (`invalid_path`, `invalid_spec`, `invalid_signature`, `origin_not_allowed`, `busy`).
public struct ProxyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status to answer with.
    public var status: Int
    /// A stable, machine-readable code.
    public var code: String
    /// A sentence for people.
    public var message: String
    /// For a service in imgproxy's compatibility mode: the `text/plain` body imgproxy answers
    /// with (its public message: `Invalid URL`, `Forbidden`, …) instead of the JSON one.
    public var publicText: String?

    public init(status: Int, code: String, message: String, publicText: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.publicText = publicText
    }

    public var description: String { "\(status) \(code): \(message)" }

    /// The response body: `{"error": code, "message": message}`.
    public var jsonBody: Data {
        let object = ["error": code, "message": message]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    static func invalidPath(_ message: String) -> ProxyError { ProxyError(status: 400, code: "invalid_path", message: message) }
    static func invalidSpec(_ message: String) -> ProxyError { ProxyError(status: 400, code: "invalid_spec", message: message) }
    static func invalidSignature(_ message: String) -> ProxyError { ProxyError(status: 403, code: "invalid_signature", message: message) }
    static func originNotAllowed(_ message: String) -> ProxyError { ProxyError(status: 403, code: "origin_not_allowed", message: message) }
    static func unsupportedFormat(_ message: String) -> ProxyError { ProxyError(status: 415, code: "unsupported", message: message) }
    static func tooLarge(_ message: String) -> ProxyError { ProxyError(status: 413, code: "too_large", message: message) }
    static func busy(_ message: String) -> ProxyError { ProxyError(status: 503, code: "busy", message: message) }
    static func timeout(_ message: String) -> ProxyError { ProxyError(status: 504, code: "timeout", message: message) }

    /// The status a kernel failure maps to: 404 or 502 for the source (403 for one the service may
    /// not read, as an object store's `AccessDenied`), 413 for sizes and pixel
    /// limits, 415 for formats no coder reads or writes, 422 for bytes that do not decode, 504 for a
    /// source that timed out, 400 for arguments a transform refuses.
    public init(_ error: ImageKernelError) {
        let code = error.code.rawValue
        let message = error.message
        switch error.code {
        case .notFound:
            self.init(status: 404, code: code, message: message)
        case .httpStatus:
            let status = error.httpStatus ?? 0
            let ours = status == 404 || status == 410 ? 404 : 502
            self.init(status: ours, code: code, message: "the source answered HTTP \(status)")
        case .tooLarge, .pixelLimitExceeded:
            self.init(status: 413, code: code, message: message)
        case .unsupported, .noCoder:
            self.init(status: 415, code: code, message: message)
        case .corruptData:
            self.init(status: 422, code: code, message: message)
        case .truncated:
            self.init(status: error.stage == .load ? 502 : 422, code: code, message: message)
        case .timeout:
            self.init(status: 504, code: code, message: message)
        case .invalidArgument where error.stage == .transform:
            self.init(status: 400, code: code, message: message)
        case .invalidURL, .blacklisted, .noLoader, .permissionDenied:
            self.init(status: 403, code: code, message: message)
        case .dnsFailure, .cannotConnect, .connectionLost, .tls, .redirect, .downloadRefused:
            self.init(status: 502, code: code, message: message)
        case .cancelled:
            self.init(status: 503, code: code, message: message)
        default:
            self.init(status: 500, code: code, message: message)
        }
    }
}
