import Foundation

/// The one error type of ImageKernel and its plugins.
///
/// It says at which ``Stage`` the work failed, which plugin failed (by name), a machine-readable
/// ``Code``, a human message, and the underlying cause when there is one. Codes are
/// string-backed structs, so plugins can add codes without breaking callers that switch on the
/// known ones.
public struct ImageKernelError: Error, CustomStringConvertible, Sendable {
    /// Where in the pipeline the failure happened.
    public struct Stage: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Validating the request (URL, options) before any work.
        public static let request = Stage(rawValue: "request")
        /// Loading bytes from a source (network, file, …).
        public static let load = Stage(rawValue: "load")
        /// Decoding bytes into pixels.
        public static let decode = Stage(rawValue: "decode")
        /// Encoding pixels into bytes.
        public static let encode = Stage(rawValue: "encode")
        /// Running a transformer.
        public static let transform = Stage(rawValue: "transform")
        /// Querying or storing a cache.
        public static let cache = Stage(rawValue: "cache")
    }

    /// What went wrong, machine-readable. Extensible: plugins may define their own codes.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The URL is nil, empty or cannot be parsed.
        public static let invalidURL = Code(rawValue: "invalid_url")
        /// The URL failed before for a permanent reason and `retryFailed` was not given.
        public static let blacklisted = Code(rawValue: "blacklisted")
        /// The operation was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
        /// No registered loader can load the URL.
        public static let noLoader = Code(rawValue: "no_loader")
        /// No registered coder can decode the bytes (or encode the format).
        public static let noCoder = Code(rawValue: "no_coder")
        /// The delegate refused the download.
        public static let downloadRefused = Code(rawValue: "download_refused")
        /// `fromCacheOnly` was given and the cache had no entry.
        public static let notInCache = Code(rawValue: "not_in_cache")
        /// The source does not exist (file missing, HTTP 404 is `httpStatus`).
        public static let notFound = Code(rawValue: "not_found")
        /// The source exists but may not be read or written.
        public static let permissionDenied = Code(rawValue: "permission_denied")
        /// A path names a directory where a file was expected.
        public static let isDirectory = Code(rawValue: "is_directory")
        /// The source is larger than the configured limit.
        public static let tooLarge = Code(rawValue: "too_large")
        /// The source did not answer in time.
        public static let timeout = Code(rawValue: "timeout")
        /// The host name could not be resolved.
        public static let dnsFailure = Code(rawValue: "dns_failure")
        /// No connection could be made to the host.
        public static let cannotConnect = Code(rawValue: "cannot_connect")
        /// The connection broke while data was flowing.
        public static let connectionLost = Code(rawValue: "connection_lost")
        /// The server answered with a status that is not acceptable; see ``ImageKernelError/httpStatus``.
        public static let httpStatus = Code(rawValue: "http_status")
        /// TLS failed (bad certificate, handshake).
        public static let tls = Code(rawValue: "tls")
        /// Too many redirects, a redirect loop, or a refused downgrade.
        public static let redirect = Code(rawValue: "redirect")
        /// The bytes are not a valid image of the sniffed format.
        public static let corruptData = Code(rawValue: "corrupt_data")
        /// The bytes end before the image does.
        public static let truncated = Code(rawValue: "truncated")
        /// A valid image using a feature the plugin does not support (12-bit JPEG, lossless, …).
        public static let unsupported = Code(rawValue: "unsupported")
        /// The header declares more pixels than the pixel limit allows.
        public static let pixelLimitExceeded = Code(rawValue: "pixel_limit_exceeded")
        /// An input/output error of the operating system.
        public static let ioError = Code(rawValue: "io_error")
        /// The disk is full.
        public static let diskFull = Code(rawValue: "disk_full")
        /// An argument is out of its allowed range.
        public static let invalidArgument = Code(rawValue: "invalid_argument")
        /// A plugin broke its contract or an internal invariant failed.
        public static let internalError = Code(rawValue: "internal")
    }

    public var stage: Stage
    /// The name of the plugin that failed (`"LoaderHTTP"`, `"CoderPNG"`, …), nil for the kernel.
    public var plugin: String?
    public var code: Code
    public var message: String
    /// The underlying error, if any.
    public var cause: (any Error & Sendable)?
    /// The HTTP status for ``Code/httpStatus`` errors.
    public var httpStatus: Int?
    /// The headers of the response that failed (names lower-cased), for ``Code/httpStatus``
    /// errors and other failures after a response arrived: `retry-after` on a 429 or 503,
    /// `www-authenticate` on a 401, … Nil when no response arrived or the source is not HTTP.
    public var responseHeaders: [String: String]?
    /// Whether retrying later may succeed (timeouts, connection problems, cancellation, HTTP
    /// 408/429/5xx). Transient failures are never put on the manager's failed-URL list.
    public var isTransient: Bool
    /// How long the source asked us to wait before trying again (HTTP `Retry-After` on a 429 or
    /// 503), nil when it said nothing. A ``RetryPolicy`` never retries sooner.
    public var retryAfter: Duration?

    public init(
        stage: Stage, plugin: String? = nil, code: Code, message: String,
        cause: (any Error & Sendable)? = nil, httpStatus: Int? = nil, isTransient: Bool? = nil,
        responseHeaders: [String: String]? = nil, retryAfter: Duration? = nil
    ) {
        self.retryAfter = retryAfter
        self.stage = stage
        self.plugin = plugin
        self.code = code
        self.message = message
        self.cause = cause
        self.httpStatus = httpStatus
        self.responseHeaders = responseHeaders
        self.isTransient = isTransient ?? Self.defaultTransience(code: code, httpStatus: httpStatus)
    }

    /// The transience that follows from a code alone: DESIGN.md rule 7.
    public static func defaultTransience(code: Code, httpStatus: Int?) -> Bool {
        switch code {
        case .timeout, .dnsFailure, .cannotConnect, .connectionLost, .cancelled:
            return true
        case .httpStatus:
            guard let status = httpStatus else { return false }
            return status == 408 || status == 429 || (500...599).contains(status)
        default:
            return false
        }
    }

    /// A cancellation error for the given stage.
    public static func cancelled(_ stage: Stage = .request, plugin: String? = nil) -> ImageKernelError {
        ImageKernelError(stage: stage, plugin: plugin, code: .cancelled, message: "the operation was cancelled")
    }

    /// Throws ``cancelled(_:plugin:)`` when the current task is cancelled: the typed-throws
    /// counterpart of `Task.checkCancellation()`, for plugins that report cancellation as
    /// code ``Code/cancelled``.
    public static func checkCancellation(_ stage: Stage = .request, plugin: String? = nil) throws(ImageKernelError) {
        if Task.isCancelled { throw cancelled(stage, plugin: plugin) }
    }

    public var description: String {
        var text = "[\(stage)"
        if let plugin { text += "/\(plugin)" }
        text += "] \(code)"
        if let httpStatus { text += " \(httpStatus)" }
        text += ": \(message)"
        if let cause { text += " (cause: \(cause))" }
        return text
    }
}

extension ImageKernelError {
    /// Wraps any error as an `ImageKernelError`; `CancellationError` becomes ``Code/cancelled``.
    public static func wrap(_ error: any Error, stage: Stage, plugin: String? = nil) -> ImageKernelError {
        if let error = error as? ImageKernelError { return error }
        if error is CancellationError { return .cancelled(stage, plugin: plugin) }
        return ImageKernelError(
            stage: stage, plugin: plugin, code: .internalError,
            message: String(describing: error), cause: SendableErrorBox(error))
    }
}

/// Carries a non-`Sendable` error's description across concurrency domains.
public struct SendableErrorBox: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ error: any Error) { description = String(describing: error) }
}
