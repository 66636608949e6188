import Foundation
import ImageKernel

/// A parsed image request path, imgproxy-style:
///
/// - `/{signature}/{spec}/plain/{percent-encoded source URL}[@{format}]`
/// - `/{signature}/{spec}/{base64url source URL}[.{format}]`
///
/// `spec` is zero or more transform steps (`orient/resize:fill:300:200/round:12`) mixed with
/// presets (`preset:NAME`, expanded first, see ``ProxyPresets``) and the output options of
/// ``ProxyRequest/Output`` (`q:Q`, `f:FORMAT` — `jpeg`, `png`, `webp`, `avif`, `heic`, `gif`,
/// `jxl`, `tiff`, `bmp`, `ico` —, `progressive`, `max_bytes:N`, `filename:NAME`, `attachment`).
/// The source is an http(s) URL, `s3://bucket/key` (under an allowed bucket), or `local:///path`
/// (under the service's `--local-root`).
/// Parsing checks the shape only; the signature, the origin and the spec's steps are checked by
/// the service.
public struct ProxyRequest: Sendable, Equatable {
    /// The first path segment: an HMAC-SHA256 in base64url, or `unsafe`.
    public var signature: String
    /// What the signature covers: the path after `/{signature}`, starting with `/`.
    public var signedPath: String
    /// The transform steps, in order, presets expanded, without the output options.
    public var steps: [String]
    /// The output format asked for (`f:FORMAT`, `@format` or `.format`), nil to negotiate.
    public var format: ImageFormat?
    /// The output options (quality, progressive, byte budget, file name).
    public var output: Output
    /// The source image.
    public var source: URL

    /// The quality asked for (`q:Q`), 1–100.
    public var quality: Int? { output.quality }

    /// Longest path the service reads.
    public static let maxPathLength = 8192

    public init(signature: String, signedPath: String, steps: [String], quality: Int?, format: ImageFormat?, source: URL, output: Output = Output()) {
        self.signature = signature
        self.signedPath = signedPath
        self.steps = steps
        self.format = format
        self.output = output
        self.output.quality = quality ?? output.quality
        self.source = source
    }

    /// Parses a request path (without the query), expanding `presets`.
    /// - Throws: ``ProxyError`` 400 `invalid_path`, `invalid_spec` or `unknown_preset`, 403
    ///   `presets_only`, 415 for an unknown format.
    public static func parse(path: String, presets: ProxyPresets = ProxyPresets()) throws(ProxyError) -> ProxyRequest {
        guard path.utf8.count <= maxPathLength else { throw .invalidPath("the path is longer than \(maxPathLength) bytes") }
        guard path.hasPrefix("/") else { throw .invalidPath("the path must start with /") }
        let body = path.dropFirst()
        guard let slash = body.firstIndex(of: "/"), slash != body.startIndex else {
            throw .invalidPath("expected /{signature}/{spec}/plain/{source URL} or /{signature}/{spec}/{base64url source URL}")
        }
        let signature = String(body[..<slash])
        let signedPath = String(body[slash...])
        let segments = signedPath.dropFirst().split(separator: "/", omittingEmptySubsequences: false)

        var specSegments: [Substring]
        let source: URL
        var format: ImageFormat?
        if let plain = segments.firstIndex(of: "plain") {
            specSegments = Array(segments[..<plain])
            var encoded = segments[(plain + 1)...].joined(separator: "/")
            if let at = encoded.lastIndex(of: "@"), encoded[encoded.index(after: at)...].allSatisfy({ $0.isASCII && $0.isLetter }) {
                format = try outputFormat(named: String(encoded[encoded.index(after: at)...]))
                encoded = String(encoded[..<at])
            }
            guard let decoded = percentDecoded(encoded) else { throw .invalidPath("the source URL has a bad percent-encoding") }
            source = try sourceURL(decoded)
        } else {
            guard let last = segments.last, segments.count >= 1, !last.isEmpty else {
                throw .invalidPath("the path names no source: expected …/plain/{URL} or …/{base64url URL}")
            }
            specSegments = Array(segments.dropLast())
            var encoded = last
            if let dot = last.lastIndex(of: ".") {
                format = try outputFormat(named: String(last[last.index(after: dot)...]))
                encoded = last[..<dot]
            }
            guard let data = base64URLDecoded(encoded), let text = String(data: data, encoding: .utf8) else {
                throw .invalidPath("the source is neither plain/{URL} nor valid base64url")
            }
            source = try sourceURL(text)
        }

        var steps: [String] = []
        var output = Output()
        for segment in try presets.expand(specSegments.filter { !$0.isEmpty }) {
            if segment.hasPrefix("f:") || segment.hasPrefix("format:") {
                let value = segment[segment.index(after: segment.firstIndex(of: ":")!)...]
                format = try outputFormat(named: String(value))
            } else if try !output.read(segment) {
                steps.append(String(segment))
            }
        }
        return ProxyRequest(signature: signature, signedPath: signedPath, steps: steps, quality: nil, format: format, source: source, output: output)
    }

    /// The transform spec text: the steps joined by `/` (empty for none).
    public var specText: String { steps.joined(separator: "/") }

    /// The format a name or extension names, for output.
    /// - Throws: ``ProxyError`` 415 for a name no format has.
    public static func outputFormat(named name: String) throws(ProxyError) -> ImageFormat {
        guard let format = ImageFormat(fileExtension: name) else {
            let names = OutputChoice.outputFormats.map(\.rawValue).joined(separator: ", ")
            throw .unsupportedFormat("\(name.prefix(32)) is not an output format (\(names))")
        }
        return format
    }

    private static func sourceURL(_ text: String) throws(ProxyError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            throw .invalidPath("the source must be an absolute http or https URL, s3://bucket/key, or local:///path")
        }
        if scheme == LocalSourcePolicy.scheme {
            guard url.host?.isEmpty ?? true, url.path.hasPrefix("/"), url.user == nil, url.query == nil else {
                throw .invalidPath("a local source is local:///path (no host, no query)")
            }
            return url
        }
        guard scheme == "http" || scheme == "https" || scheme == "s3", let host = url.host, !host.isEmpty
        else { throw .invalidPath("the source must be an absolute http or https URL, s3://bucket/key, or local:///path") }
        return url
    }

    /// Base64url (RFC 4648 §5) without padding, as imgproxy writes it; padding is accepted too.
    /// Nil for any other character, a length no text encodes, or padding inside the text; the
    /// unused bits of the last character are ignored (as Go's decoder, imgproxy's, does).
    public static func base64URLDecoded(_ text: Substring) -> Data? {
        var bytes = Array(text.utf8)
        while bytes.last == UInt8(ascii: "=") { bytes.removeLast() }
        guard bytes.count % 4 != 1 else { return nil }
        var out = Data(capacity: bytes.count * 3 / 4)
        var bits: UInt32 = 0, count = 0
        for byte in bytes {
            guard let value = base64URLValue(byte) else { return nil }
            bits = bits << 6 | UInt32(value)
            count += 6
            if count >= 8 {
                count -= 8
                out.append(UInt8(truncatingIfNeeded: bits >> UInt32(count)))
            }
        }
        return out
    }

    /// Base64url without padding.
    public static func base64URLEncoded(_ data: some DataProtocol) -> String {
        let bytes = Array(data)
        return String(unsafeUninitializedCapacity: (bytes.count * 4 + 2) / 3) { out in
            var n = 0, bits: UInt32 = 0, count = 0
            for byte in bytes {
                bits = bits << 8 | UInt32(byte)
                count += 8
                while count >= 6 {
                    count -= 6
                    out[n] = base64URLAlphabet[Int(bits >> UInt32(count) & 63)]
                    n += 1
                }
            }
            if count > 0 {
                out[n] = base64URLAlphabet[Int(bits << UInt32(6 - count) & 63)]
                n += 1
            }
            return n
        }
    }

    private static let base64URLAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static func base64URLValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }

    /// `text` with every `%XX` replaced by its byte; nil for a `%` without two hex digits after
    /// it or bytes that are not UTF-8 (as Foundation's `removingPercentEncoding`).
    static func percentDecoded(_ text: String) -> String? {
        var utf8 = text.utf8[...]
        guard utf8.contains(UInt8(ascii: "%")) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.popFirst().flatMap(ProxySigner.nibble), let low = utf8.popFirst().flatMap(ProxySigner.nibble) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
