import Foundation
import ImageKernel

extension ImageProxyService {
    /// imgproxy's `raw` and `skip_processing`: the source's own bytes when the options ask for
    /// them, or nil when the source must be rendered.
    ///
    /// - `raw`: every source is answered as it is, unchecked (its media type sniffed from its
    ///   bytes, `application/octet-stream` when they are no known image).
    /// - `skip_processing:FORMAT…`: a source in a listed format is answered as it is, when the
    ///   result's format is the source's (named in the URL or not named at all), as imgproxy does;
    ///   any other source is rendered.
    ///
    /// The source limits (size, time, allowed origins) hold as for a render; the bytes are not kept
    /// as a result (they are the original, which the source caches keep).
    func passThrough(_ source: URL, options: ImgproxyOptions) async throws(ProxyError) -> Rendered? {
        guard options.raw || !options.skipProcessing.isEmpty else { return nil }
        let loaded = try await loadSource(source)
        try options.sourceLimits.check(sourceBytes: loaded.data.count)
        let format = ImageFormat.sniff(loaded.data)
        if !options.raw {
            guard options.skipProcessing.contains(format), options.format == nil || options.format == format else { return nil }
        }
        let validator = loaded.strongValidator.map { Data($0.utf8) } ?? Digest.bytes(of: loaded.data)
        return Rendered(data: loaded.data, format: format, etag: Self.etag(source: validator, key: "pass-through", format: format))
    }
}
