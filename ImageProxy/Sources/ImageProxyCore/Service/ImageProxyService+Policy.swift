import Foundation

extension ImageProxyService {
    /// Checks the request's signature: the service's key, or `unsafe` for a service without one.
    func authorise(_ request: ProxyRequest) throws(ProxyError) {
        guard let signer = configuration.signer else {
            guard request.signature == "unsafe" else { throw .invalidSignature("this service runs without a key and accepts only the signature unsafe") }
            return
        }
        guard signer.isValid(request.signature, for: request.signedPath) else {
            throw .invalidSignature("the signature does not match the path")
        }
    }

    /// Checks that the service may read `source`: a local one under `--local-root`
    /// (``LocalSourcePolicy``), any other under an allowed origin (``OriginPolicy``).
    func checkSource(_ source: URL) throws(ProxyError) {
        if LocalSourcePolicy.isLocal(source) {
            _ = try localPolicy.resolve(source)
        } else {
            try policy.check(source)
        }
    }
}
