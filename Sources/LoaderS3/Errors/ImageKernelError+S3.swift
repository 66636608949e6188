import Foundation
import ImageKernel

extension ImageKernelError {
    /// An error of the S3 plugins at the load stage.
    static func s3(
        _ code: Code, _ message: String, httpStatus: Int? = nil, isTransient: Bool? = nil,
        responseHeaders: [String: String]? = nil, cause: S3ErrorResponse? = nil
    ) -> ImageKernelError {
        ImageKernelError(
            stage: .load, plugin: S3Loader.pluginName, code: code, message: message, cause: cause,
            httpStatus: httpStatus, isTransient: isTransient, responseHeaders: responseHeaders)
    }

    /// The S3 error the store answered with (`NoSuchKey`, `SignatureDoesNotMatch`, …), when this
    /// error came from an S3 error response.
    public var s3Error: S3ErrorResponse? { cause as? S3ErrorResponse }
}

/// An S3 error response: the `<Error>` XML body of a failed request.
public struct S3ErrorResponse: Error, Sendable, Hashable, CustomStringConvertible {
    /// The S3 error code: `NoSuchKey`, `NoSuchBucket`, `AccessDenied`, `SignatureDoesNotMatch`,
    /// `InvalidAccessKeyId`, `SlowDown`, … (empty when the body was not S3's XML).
    public var code: String
    /// The store's message, if any.
    public var message: String
    /// The HTTP status.
    public var status: Int
    /// The request ID the store gave (`x-amz-request-id` or `<RequestId>`).
    public var requestID: String?
    /// The bucket's region, when the store said where it is (`<Region>` or `x-amz-bucket-region`).
    public var region: String?

    /// Parses an error body (tolerant: anything not S3's XML gives an empty code).
    public init(status: Int, body: Data, headers: [String: String] = [:]) {
        let text = String(decoding: body.prefix(64 << 10), as: UTF8.self)
        self.status = status
        code = Self.element("Code", in: text) ?? ""
        message = Self.element("Message", in: text) ?? ""
        requestID = Self.element("RequestId", in: text) ?? headers["x-amz-request-id"]
        region = headers["x-amz-bucket-region"] ?? Self.element("Region", in: text)
    }

    public var description: String {
        "S3 \(status) \(code.isEmpty ? "(no S3 error code)" : code)\(message.isEmpty ? "" : ": \(message)")"
    }

    /// The kernel error for this response: not found, forbidden, transient or plain status.
    func kernelError(for url: URL, headers: [String: String]) -> ImageKernelError {
        let what = "\(code.isEmpty ? "status \(status)" : code) for \(url.absoluteString)\(message.isEmpty ? "" : ": \(message)")"
        switch code {
        case "NoSuchKey", "NoSuchBucket", "NoSuchVersion":
            return .s3(.notFound, "not found: \(what)", httpStatus: status, isTransient: false, responseHeaders: headers, cause: self)
        case "AccessDenied", "SignatureDoesNotMatch", "InvalidAccessKeyId", "ExpiredToken", "InvalidToken",
             "RequestTimeTooSkewed", "AllAccessDisabled":
            return .s3(.permissionDenied, "forbidden: \(what)", httpStatus: status, isTransient: false, responseHeaders: headers, cause: self)
        case "SlowDown", "ServiceUnavailable", "InternalError", "RequestTimeout":
            return .s3(.httpStatus, "the store asks to retry later: \(what)", httpStatus: status, isTransient: true, responseHeaders: headers, cause: self)
        default:
            switch status {
            case 404: return .s3(.notFound, "not found: \(what)", httpStatus: status, isTransient: false, responseHeaders: headers, cause: self)
            case 403: return .s3(.permissionDenied, "forbidden: \(what)", httpStatus: status, isTransient: false, responseHeaders: headers, cause: self)
            default: return .s3(.httpStatus, "the store answered \(what)", httpStatus: status, responseHeaders: headers, cause: self)
            }
        }
    }

    /// The text of the first `<name>…</name>`, entities decoded.
    private static func element(_ name: String, in text: String) -> String? {
        guard let open = text.range(of: "<\(name)>"), let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex) else { return nil }
        return String(text[open.upperBound..<close.lowerBound])
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
