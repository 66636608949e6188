internal import CCurl
import ImageKernel

/// Turns a libcurl result into the kernel's error vocabulary.
enum CurlErrorMapping {
    /// The error for a transfer that ended with `code` (never `CURLE_OK`).
    /// - Parameter redirected: whether the transfer had followed a redirect, which makes an
    ///   unsupported protocol a refused redirect rather than a bad URL.
    static func error(for code: CURLcode, redirected: Bool) -> ImageKernelError {
        let detail = String(cString: curl_easy_strerror(code))
        let (kind, summary) = classify(code, redirected: redirected)
        return .http(kind, "\(summary) (curl \(code.rawValue): \(detail))")
    }

    private static func classify(_ code: CURLcode, redirected: Bool) -> (ImageKernelError.Code, String) {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return (.timeout, "the server did not answer in time")
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return (.dnsFailure, "the host name could not be resolved")
        case CURLE_COULDNT_CONNECT:
            return (.cannotConnect, "no connection could be made")
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING,
             CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return (.connectionLost, "the connection broke")
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE,
             CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
             CURLE_SSL_ENGINE_INITFAILED:
            return (.tls, "TLS failed")
        case CURLE_TOO_MANY_REDIRECTS:
            return (.redirect, "too many redirects")
        case CURLE_UNSUPPORTED_PROTOCOL where redirected:
            return (.redirect, "a redirect to a refused scheme (https→http needs allowInsecureRedirects)")
        case CURLE_UNSUPPORTED_PROTOCOL:
            // The URL was checked to be http(s) before; curl also says this when the reply is
            // not HTTP at all (it refuses HTTP/0.9).
            return (.ioError, "the server's answer is not HTTP")
        case CURLE_URL_MALFORMAT:
            return (.invalidURL, "curl cannot parse the URL")
        case CURLE_FILESIZE_EXCEEDED:
            return (.tooLarge, "the body exceeds the size limit")
        case CURLE_ABORTED_BY_CALLBACK:
            return (.cancelled, "the transfer was aborted")
        default:
            return (.ioError, "the transfer failed")
        }
    }
}
