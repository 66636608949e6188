import ImageKernel

extension ImageKernelError.Code {
    /// The response modifier refused the response.
    public static let invalidResponse = ImageKernelError.Code(rawValue: "invalid_response")
}

extension ImageKernelError {
    /// An error of the HTTP loader at the load stage.
    static func http(
        _ code: Code, _ message: String, httpStatus: Int? = nil, isTransient: Bool? = nil
    ) -> ImageKernelError {
        ImageKernelError(
            stage: .load, plugin: HTTPLoader.pluginName, code: code, message: message,
            httpStatus: httpStatus, isTransient: isTransient)
    }
}
