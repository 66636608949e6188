import Foundation

/// imgproxy's answers to requests it refuses: the status and the `text/plain` body it sends
/// (its public message), with the detailed message for the log.
extension ProxyError {
    /// 404 `Invalid URL`: a path, source or option imgproxy cannot read (imgproxy's
    /// `InvalidURLError`, `UnknownOptionError`, `ForbiddenOptionError`, `OptionArgumentError`).
    static func imgproxyInvalidURL(_ message: String) -> ProxyError {
        ProxyError(status: 404, code: "invalid_url", message: message, publicText: "Invalid URL")
    }

    /// 403 `Forbidden`: a signature that does not match (imgproxy's `SignatureError`).
    static func imgproxySignature(_ message: String) -> ProxyError {
        ProxyError(status: 403, code: "invalid_signature", message: message, publicText: "Forbidden")
    }

    /// 403: a signature section that looks like a processing option, on a service without a key.
    static let imgproxyMalformedSignature: ProxyError = {
        let message = "The signature appears to be a processing option. The signature section should always be present in the URL."
        return ProxyError(status: 403, code: "invalid_signature", message: message, publicText: message)
    }()

    /// 403 `Invalid URL`: a security option in a URL when they are not allowed.
    static let imgproxySecurityOptions = ProxyError(
        status: 403, code: "security_options", message: "Security processing options are not allowed", publicText: "Invalid URL")

    /// 404 `Invalid source URL`: a source outside the allowed ones (imgproxy's `SourceURLError`).
    static func imgproxySource(_ message: String) -> ProxyError {
        ProxyError(status: 404, code: "origin_not_allowed", message: message, publicText: "Invalid source URL")
    }

    /// 422 `Invalid URL`: a result format no coder writes (imgproxy's `NewCantSaveError`).
    static func imgproxyCantSave(_ message: String) -> ProxyError {
        ProxyError(status: 422, code: "unsupported", message: message, publicText: "Invalid URL")
    }

    /// Any error in imgproxy's shape: the kernel's failures keep their status, with imgproxy's
    /// public messages (`Invalid source image` for a source that does not decode or is too
    /// large, `Source image is unreachable` / not found for the origin's answers).
    var imgproxyShaped: ProxyError {
        guard publicText == nil else { return self }
        var shaped = self
        switch code {
        case "origin_not_allowed":
            shaped = .imgproxySource(message)
        case "invalid_path", "invalid_spec":
            shaped = .imgproxyInvalidURL(message)
        case "invalid_signature":
            shaped = .imgproxySignature(message)
        case "corrupt_data", "truncated", "pixel_limit_exceeded", "no_coder":
            shaped.status = 422
            shaped.publicText = "Invalid source image"
        default:
            shaped.publicText = status == 404 ? "Not Found" : status >= 500 ? "Internal error" : "Invalid source image"
        }
        return shaped
    }
}
