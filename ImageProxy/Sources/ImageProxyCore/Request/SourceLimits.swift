import Foundation

/// Limits on a source that one request sets over the service's (imgproxy's security options
/// `max_src_resolution`, `max_src_file_size`, `max_animation_frames` and
/// `max_animation_frame_resolution`, allowed by `IMGPROXY_ALLOW_SECURITY_OPTIONS`). Each nil
/// keeps the service's own limit.
///
/// A URL's limit replaces the service's, looser or stricter, as in imgproxy; only the source's
/// size is bounded by the service's `--max-source-mb` as well, since a download stops there.
public struct SourceLimits: Sendable, Hashable {
    /// Pixels of the source (of each frame of an animation), over ``ProxyConfiguration/maxSourcePixels``.
    public var pixels: Int?
    /// Bytes of the source; checked once it is loaded.
    public var bytes: Int64?
    /// Frames of an animated source, over ``ProxyConfiguration/maxAnimationFrames``.
    public var frames: Int?
    /// Pixels of each frame of an animated source, over
    /// ``ProxyConfiguration/maxAnimationFramePixels``; 0 checks all frames together.
    public var framePixels: Int?

    public init() {}

    /// Whether the URL sets none.
    public var isEmpty: Bool { pixels == nil && bytes == nil && frames == nil && framePixels == nil }

    /// Its part of a result key (a result rendered under looser limits must not answer a URL with
    /// stricter ones), nil when empty.
    var keyPart: String? {
        guard !isEmpty else { return nil }
        func text<T>(_ value: T?) -> String { value.map { "\($0)" } ?? "-" }
        return "sl:\(text(pixels)):\(text(bytes)):\(text(frames)):\(text(framePixels))"
    }

    /// The service's configuration with these limits over it.
    func applied(to configuration: ProxyConfiguration) -> ProxyConfiguration {
        guard !isEmpty else { return configuration }
        var limits = configuration
        if let pixels { limits.maxSourcePixels = pixels }
        if let frames { limits.maxAnimationFrames = frames }
        if let framePixels { limits.maxAnimationFramePixels = framePixels }
        return limits
    }

    /// Throws imgproxy's answer (422, `Invalid source image`) for a source over ``bytes``.
    func check(sourceBytes count: Int) throws(ProxyError) {
        guard let bytes, Int64(count) > bytes else { return }
        var error = ProxyError(status: 422, code: "too_large", message: "Source image file is too big (\(count) bytes, more than \(bytes))")
        error.publicText = "Invalid source image"
        throw error
    }
}
