import Foundation
import ImageKernel

extension ProxyRequest {
    /// The output options a spec may carry besides its steps (imgproxy's names in brackets):
    ///
    /// | option | meaning |
    /// |---|---|
    /// | `q:Q`, `quality:Q` | quality 1–100 (default: the service's for the format) |
    /// | `progressive[:BOOL]` | progressive JPEG, interlaced (Adam7) PNG; `progressive:0` turns the service's default off |
    /// | `max_bytes:N`, `mb:N` | lower the quality of a JPEG, WebP or AVIF result until it fits in N bytes |
    /// | `filename:NAME`, `fn:NAME` | `Content-Disposition` with this file name (percent-decoded; the result's extension added) |
    /// | `attachment[:BOOL]`, `att[:BOOL]` | `Content-Disposition: attachment` (a download), named after the source when no `filename` |
    ///
    /// `BOOL` is `1`, `0`, `true`, `false`, `t` or `f`.
    public struct Output: Sendable, Hashable {
        /// `q:Q`, 1–100.
        public var quality: Int?
        /// `progressive[:BOOL]`; nil leaves it to the service (`--jpeg-progressive`, `--png-interlaced`).
        public var progressive: Bool?
        /// `max_bytes:N`.
        public var maxBytes: Int?
        /// `filename:NAME`, percent-decoded.
        public var filename: String?
        /// `attachment`.
        public var attachment: Bool = false
        /// The metadata the result carries, over the service's ``ProxyConfiguration/metadataPolicy``
        /// (imgproxy mode's `strip_metadata` and `keep_copyright`); nil keeps the service's.
        public var metadata: MetadataPolicy?
        /// Whether the result keeps the source's colour profile rather than being converted to
        /// sRGB, over ``ProxyConfiguration/keepsColorProfile`` (imgproxy mode's
        /// `strip_color_profile`); nil keeps the service's.
        public var keepsColorProfile: Bool?
        /// Quality by the format the result takes when ``quality`` is nil (imgproxy mode's
        /// `format_quality`, for a format settled at render time).
        public var formatQuality: [ImageFormat: Int] = [:]
        /// Limits on the source over the service's (imgproxy mode's security options).
        public var sourceLimits = SourceLimits()

        public init() {}

        /// Whether the response carries `Content-Disposition`.
        public var disposes: Bool { filename != nil || attachment }

        /// Reads `segment` when it is an output option.
        /// - Returns: false for a segment that is not one (a transform step).
        /// - Throws: ``ProxyError`` 400 `invalid_spec` for an option with a bad value.
        mutating func read(_ segment: Substring) throws(ProxyError) -> Bool {
            let colon = segment.firstIndex(of: ":")
            let name = colon.map { segment[..<$0] } ?? segment
            let value = colon.map { segment[segment.index(after: $0)...] }
            switch name {
            case "q", "quality":
                guard let value, let q = Int(value), (1...100).contains(q) else { throw .invalidSpec("\(segment.prefix(80)): quality must be 1…100") }
                quality = q
            case "progressive":
                progressive = try Self.bool(value, segment)
            case "max_bytes", "mb":
                guard let value, let n = Int(value), n >= 1, n <= 1 << 30 else {
                    throw .invalidSpec("\(segment.prefix(80)): max_bytes takes a byte count from 1 to 2^30")
                }
                maxBytes = n
            case "filename", "fn":
                guard let value, !value.isEmpty, value.utf8.count <= 1024, let decoded = ProxyRequest.percentDecoded(String(value)),
                      !decoded.isEmpty, !decoded.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
                else { throw .invalidSpec("\(segment.prefix(80)): filename takes a percent-encoded UTF-8 name without control characters") }
                filename = decoded
            case "attachment", "att", "return_attachment":
                attachment = try Self.bool(value, segment)
            default:
                return false
            }
            return true
        }

        /// What the options change in the encoded result (the file name changes headers only).
        var keyPart: String {
            var part = "q\(quality.map(String.init) ?? "d")p\(progressive.map { $0 ? "1" : "0" } ?? "d")b\(maxBytes ?? 0)"
            if let metadata { part += "m" + metadata.rawValue }
            if let keepsColorProfile { part += keepsColorProfile ? "c1" : "c0" }
            if let limits = sourceLimits.keyPart { part += limits }
            if !formatQuality.isEmpty { part += "fq" + formatQuality.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)\($0.value)" }.joined(separator: "+") }
            return part
        }

        /// The service's configuration with this request's source limits, metadata and colour choices over it:
        /// what a render of this request encodes and converts by.
        func limits(over configuration: ProxyConfiguration) -> ProxyConfiguration {
            var limits = sourceLimits.applied(to: configuration)
            if let metadata {
                limits.keepsAllMetadata = metadata == .all
                limits.keepsCopyright = metadata == .copyright
            }
            if let keepsColorProfile { limits.keepsColorProfile = keepsColorProfile }
            return limits
        }

        private static func bool(_ value: Substring?, _ segment: Substring) throws(ProxyError) -> Bool {
            switch value {
            case nil, "1", "t", "true": true
            case "0", "f", "false": false
            default: throw .invalidSpec("\(segment.prefix(80)): takes 1 or 0 (true or false)")
            }
        }
    }
}
