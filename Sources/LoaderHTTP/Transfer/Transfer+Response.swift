internal import CCurl
import Foundation
import ImageKernel

/// What curl's callbacks do with the response, and how a finished transfer becomes an outcome.
/// Callbacks stop a transfer by returning false (the C callback then returns a short count) after
/// storing the reason in ``abortError``.
extension Transfer {
    /// A header line of any response in the redirect chain: only proof of life. The final
    /// response's headers are read in one go from curl's header store in ``acceptHead()``.
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        lastActivity = .now
        return true
    }

    /// A piece of the final response's body.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        lastActivity = .now
        if response == nil, !acceptHead() { return false }
        if Int64(body.count) + Int64(bytes.count) > configuration.maxBodySize {
            abortError = tooLarge()
            return false
        }
        body.append(bytes)
        reportProgress(chunk: deliversChunks && tokens.contains { $0.wantsChunks } ? Data(bytes) : nil)
        return true
    }

    /// Reads the final status and headers, runs the response modifier and decides whether the
    /// body is wanted. Returns false (with ``abortError`` set) to refuse the response.
    func acceptHead() -> Bool {
        guard let easy else { return false }
        var status = 0
        _ = CCurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var length: curl_off_t = -1
        _ = CCurl_easy_getinfo_off_t(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        expected = length >= 0 ? Int64(length) : -1
        var head = HTTPResponse(url: effectiveURL() ?? spec.url, statusCode: status, headers: finalHeaders())
        if let modifier = configuration.responseModifier {
            guard let modified = modifier.modified(head) else {
                abortError = .http(
                    .invalidResponse, "the response modifier refused the response (status \(status))",
                    responseHeaders: head.headers)
                return false
            }
            head = modified
        }
        response = head
        if head.statusCode == 304 && spec.isConditional { return true }
        guard acceptResumedHead(head) else { return false }
        guard configuration.acceptableStatusCodes.contains(head.statusCode) || (head.statusCode == 206 && resume != nil) else {
            abortError = .http(
                .httpStatus, "the server answered \(head.statusCode) for \(head.url.absoluteString)",
                httpStatus: head.statusCode, responseHeaders: head.headers)
            return false
        }
        if expected > configuration.maxBodySize {
            abortError = tooLarge()
            return false
        }
        if expected > 0 { body.reserve(Int(expected)) }
        return true
    }

    /// The outcome of a transfer that curl finished with `code`. Call before releasing the handle.
    func outcome(for code: CURLcode) -> Result<LoadResult, ImageKernelError> {
        if let abortError { return .failure(abortError) }
        guard code == CURLE_OK else {
            return .failure(CurlErrorMapping.error(for: code, redirected: redirectCount() > 0))
        }
        if response == nil, !acceptHead() { return .failure(abortError ?? .http(.internalError, "no response")) }
        guard let last = response else { return .failure(.http(.internalError, "no response")) }
        // A resumed body reports the response it continues.
        let response = resume != nil && last.statusCode == 206 ? firstResponse ?? last : last
        if response.statusCode == 304 && spec.isConditional {
            return .success(LoadResult(
                data: Data(), url: response.url, statusCode: 304, headers: response.headers, notModified: true))
        }
        var data = body.takeData()
        if let bodyModifier = configuration.responseBodyModifier {
            guard let modified = bodyModifier.modified(data, response: response) else {
                return .failure(.http(
                    .bodyRejected, "the response body modifier refused the \(data.count)-byte body of \(response.url.absoluteString)",
                    responseHeaders: response.headers))
            }
            data = modified
        }
        return .success(LoadResult(data: data, url: response.url, statusCode: response.statusCode, headers: response.headers))
    }

    /// Whether callers that asked for progressive chunks get them: not when a body modifier will
    /// change the bytes.
    var deliversChunks: Bool { configuration.responseBodyModifier == nil }

    private func tooLarge() -> ImageKernelError {
        let size = expected >= 0 ? "\(expected) bytes" : "more than \(configuration.maxBodySize) bytes"
        return .http(.tooLarge, "the body (\(size)) exceeds maxBodySize \(configuration.maxBodySize)")
    }

    /// The headers of the last response (after redirects), names lower-cased, repeated names
    /// joined with ", ".
    private func finalHeaders() -> [String: String] {
        guard let easy else { return [:] }
        var headers: [String: String] = Dictionary(minimumCapacity: 12)
        var previous: UnsafeMutablePointer<curl_header>?
        while let header = curl_easy_nextheader(easy, CCurl_header_origin_server(), -1, previous) {
            previous = header
            guard let rawName = header.pointee.name, let rawValue = header.pointee.value else { continue }
            let name = Self.lowercasedASCII(rawName)
            let value = String(cString: rawValue)
            if let existing = headers[name] {
                headers[name] = existing + ", " + value
            } else {
                headers[name] = value
            }
        }
        return headers
    }

    private static func lowercasedASCII(_ text: UnsafePointer<CChar>) -> String {
        let length = strlen(text)
        return String(unsafeUninitializedCapacity: length) { output in
            text.withMemoryRebound(to: UInt8.self, capacity: length) { input in
                for index in 0..<length {
                    let byte = input[index]
                    output[index] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                }
            }
            return length
        }
    }

    private func effectiveURL() -> URL? {
        guard let easy else { return nil }
        var text: UnsafePointer<CChar>?
        guard CCurl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &text) == CURLE_OK, let text else { return nil }
        return URL(string: String(cString: text))
    }

    private func redirectCount() -> Int {
        guard let easy else { return 0 }
        var count = 0
        _ = CCurl_easy_getinfo_long(easy, CURLINFO_REDIRECT_COUNT, &count)
        return count
    }
}
