internal import CCurl
import Foundation
import ImageKernel

extension Transfer {
    /// Configures a fresh (or reset) easy handle for this transfer and takes it over. On failure
    /// the handle is given back untouched by this transfer's state.
    func adopt(_ handle: UnsafeMutableRawPointer, cookieShare: UnsafeMutableRawPointer?) throws(ImageKernelError) {
        easy = handle
        callbackRetain = Unmanaged.passRetained(self)
        do {
            try configure(handle, cookieShare: cookieShare)
        } catch {
            _ = releaseEasyHandle()
            throw error
        }
        lastActivity = .now
    }

    /// Lets go of the easy handle (already removed from the multi handle): frees the header list,
    /// drops the retain curl's callbacks held, and returns the handle for reuse or cleanup.
    func releaseEasyHandle() -> UnsafeMutableRawPointer? {
        let handle = easy
        easy = nil
        if let list = headerList { curl_slist_free_all(list) }
        headerList = nil
        if let list = resolveList { curl_slist_free_all(list) }
        resolveList = nil
        callbackRetain?.release()
        callbackRetain = nil
        return handle
    }

    private func configure(_ handle: UnsafeMutableRawPointer, cookieShare: UnsafeMutableRawPointer?) throws(ImageKernelError) {
        let config = configuration
        try set(handle, CURLOPT_URL, spec.url.absoluteString)
        try set(handle, CURLOPT_NOSIGNAL, 1)
        try set(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        try set(handle, CURLOPT_FOLLOWLOCATION, config.maxRedirects > 0 ? 1 : 0)
        try set(handle, CURLOPT_MAXREDIRS, max(0, config.maxRedirects))
        let secureOrigin = spec.url.scheme?.lowercased() == "https"
        try set(handle, CURLOPT_REDIR_PROTOCOLS_STR, secureOrigin && !config.allowInsecureRedirects ? "https" : "http,https")
        try set(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(milliseconds(config.timeout)))
        if config.allowsHTTP2 {
            try set(handle, CURLOPT_HTTP_VERSION, CCurl_http_version_2tls())
            // Wait for a connection that may multiplex rather than opening another — only where
            // HTTP/2 can be negotiated (TLS ALPN). On plain HTTP/1.1 the wait would serialise
            // transfers to one host behind the first.
            if secureOrigin { try set(handle, CURLOPT_PIPEWAIT, 1) }
        } else {
            try set(handle, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
        }
        // Bigger reads, fewer callbacks. Best effort: curl refuses a new size once a reused
        // handle holds a receive buffer, and that buffer then serves as it is.
        _ = CCurl_easy_setopt_long(handle, CURLOPT_BUFFERSIZE, 64 * 1024)
        if spec.allowInvalidCertificates {
            try set(handle, CURLOPT_SSL_VERIFYPEER, 0)
            try set(handle, CURLOPT_SSL_VERIFYHOST, 0)
        }
        if let credentials = config.credentials {
            try set(handle, CURLOPT_USERNAME, credentials.user)
            try set(handle, CURLOPT_PASSWORD, credentials.password)
            try set(handle, CURLOPT_HTTPAUTH, CCurl_auth_basic())
        }
        if spec.handleCookies, let cookieShare {
            try set(handle, CURLOPT_COOKIEFILE, "")  // "" turns the cookie engine on without a file
            try check(CCurl_easy_setopt_pointer(handle, CURLOPT_SHARE, cookieShare), "CURLOPT_SHARE")
        }
        for line in spec.curlHeaderLines + resumeHeaderLines {
            guard let list = curl_slist_append(headerList, line) else {
                throw .http(.internalError, "curl_slist_append failed")
            }
            headerList = list
        }
        if let headerList {
            try check(CCurl_easy_setopt_pointer(handle, CURLOPT_HTTPHEADER, headerList), "CURLOPT_HTTPHEADER")
        }
        for line in spec.resolve {
            guard let list = curl_slist_append(resolveList, line) else {
                throw .http(.internalError, "curl_slist_append failed")
            }
            resolveList = list
        }
        if let resolveList {
            try check(CCurl_easy_setopt_pointer(handle, CURLOPT_RESOLVE, resolveList), "CURLOPT_RESOLVE")
        }
        let userdata = callbackRetain?.toOpaque()
        try check(CCurl_easy_setopt_write_function(handle, { buffer, size, count, userdata in
            guard let buffer, let userdata else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
            let length = size * count
            return transfer.receiveBody(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
        }, userdata), "CURLOPT_WRITEFUNCTION")
        try check(CCurl_easy_setopt_header_function(handle, { buffer, size, count, userdata in
            guard let buffer, let userdata else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
            let length = size * count
            return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : 0
        }, userdata), "CURLOPT_HEADERFUNCTION")
    }

    private func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Int) throws(ImageKernelError) {
        try check(CCurl_easy_setopt_long(handle, option, value), "option \(option.rawValue)")
    }

    private func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String) throws(ImageKernelError) {
        try check(CCurl_easy_setopt_string(handle, option, value), "option \(option.rawValue)")
    }

    private func check(_ code: CURLcode, _ what: String) throws(ImageKernelError) {
        guard code == CURLE_OK else {
            throw .http(.internalError, "curl refused \(what): \(String(cString: curl_easy_strerror(code)))")
        }
    }
}

/// Whole milliseconds of a duration, at least 1.
func milliseconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    return max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
}
