import ImageKernel

extension ImageKernelError.Code {
    /// The response modifier refused the response.
    public static let invalidResponse = ImageKernelError.Code(rawValue: "invalid_response")
    /// The response body modifier refused the body (``HTTPResponseBodyModifier``).
    public static let bodyRejected = ImageKernelError.Code(rawValue: "body_rejected")
}

extension ImageKernelError {
    /// An error of the HTTP loader at the load stage.
    static func http(
        _ code: Code, _ message: String, httpStatus: Int? = nil, isTransient: Bool? = nil,
        responseHeaders: [String: String]? = nil
    ) -> ImageKernelError {
        // A 429 or 503 may say when to come back; the kernel's RetryPolicy waits at least that long.
        let retryAfter = httpStatus == 429 || httpStatus == 503 ? RetryAfter.parse(responseHeaders?["retry-after"]) : nil
        return ImageKernelError(
            stage: .load, plugin: HTTPLoader.pluginName, code: code, message: message,
            httpStatus: httpStatus, isTransient: isTransient, responseHeaders: responseHeaders, retryAfter: retryAfter)
    }
}
