import Foundation
import ImageKernel

/// An imgproxy URL path, read as imgproxy reads it:
///
/// - `/{signature}/{option}/…/plain/{source URL}[@{extension}]`
/// - `/{signature}/{option}/…/{base64url source URL}[.{extension}]` (the encoded URL may be split by `/`)
///
/// each option `name:arg:arg…` (``ImgproxySettings/argumentsSeparator``), or with
/// ``ImgproxySettings/onlyPresets`` `/{signature}/{preset}:{preset}…/{source}`. The signature is
/// checked first (``ImgproxySettings/signers``), over the path after it, as imgproxy does after
/// undoing the normalisations of proxies (`%3A` in options, `scheme:/` in plain sources).
public struct ImgproxyPath: Sendable {
    /// The options, imgproxy's defaults where the path names none (the `default` preset applied).
    public var options: ImgproxyOptions
    /// The source (``ImgproxySettings/baseURL`` prepended where it is missing).
    public var source: URL

    /// Parses and authorises `path` (without the query).
    /// - Throws: ``ProxyError`` in imgproxy's shape (``ProxyError/publicText``): 404 `Invalid URL`
    ///   for a path, option or source that does not parse, 403 `Forbidden` for a signature that
    ///   does not match.
    ///
    /// `hints` (read only with ``ImgproxySettings/enablesClientHints``) set the `dpr` and `width`
    /// the options start from, before the `default` preset and the path's options.
    public static func parse(_ path: String, settings: ImgproxySettings, hints: ImgproxyClientHints? = nil) throws(ProxyError) -> ImgproxyPath {
        guard path.utf8.count <= ProxyRequest.maxPathLength else { throw .imgproxyInvalidURL("Invalid path: longer than \(ProxyRequest.maxPathLength) bytes") }
        let trimmed = path.hasPrefix("/") ? path.dropFirst() : path[...]
        let slash = trimmed.firstIndex(of: "/")
        let signature = slash.map { String(trimmed[..<$0]) } ?? String(trimmed)
        let rest = slash.map { String(trimmed[trimmed.index(after: $0)...]) } ?? ""
        guard !signature.isEmpty, !rest.isEmpty else { throw .imgproxyInvalidURL("Invalid path: \(rest)") }
        let signed = redenormalized(rest)
        try verify(signature: signature, path: "/" + signed, settings: settings)

        var options = ImgproxyOptions()
        options.autoRotate = settings.autoRotate
        if settings.enablesClientHints, let hints { hints.apply(to: &options) }
        if settings.presets["default"] != nil { try options.apply("preset", ["default"], settings: settings) }
        var parts = signed.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if settings.onlyPresets {
            try options.apply("preset", parts[0].imgproxyArguments(separatedBy: settings.argumentsSeparator), settings: settings)
            parts.removeFirst()
        } else {
            if ImgproxyOptions.ResizingType(rawValue: parts[0]) != nil {
                throw .imgproxyInvalidURL("It looks like you're using the deprecated basic URL format")
            }
            while let first = parts.first {
                let args = first.imgproxyArguments(separatedBy: settings.argumentsSeparator)
                guard args.count > 1 else { break }
                parts.removeFirst()
                if !settings.allowedProcessingOptions.isEmpty, !settings.allowedProcessingOptions.contains(args[0]) {
                    throw .imgproxyInvalidURL("Forbidden processing option \(args[0])")
                }
                try options.apply(args[0], Array(args.dropFirst()), settings: settings)
            }
        }
        let (decoded, fileExtension) = try decodeSource(parts, includesFilename: settings.base64URLIncludesFilename)
        if !options.raw, let fileExtension, !fileExtension.isEmpty { try options.apply("format", [fileExtension], settings: settings) }
        let text = settings.urlReplacements.reduce(decoded) { $1.apply(to: $0) }
        let full = settings.baseURL.isEmpty || text.hasPrefix(settings.baseURL) ? text : settings.baseURL + text
        guard let source = URL(string: full), let scheme = source.scheme?.lowercased(),
              ["http", "https", "s3", LocalSourcePolicy.scheme].contains(scheme)
        else { throw .imgproxySource("Source URL is not allowed: \(full)") }
        return ImgproxyPath(options: options, source: source)
    }

    /// imgproxy's `VerifySignature`: without signers any signature passes (but one that looks like
    /// an option); else a trusted one, or the base64url HMAC of any signer, truncated to the size.
    static func verify(signature: String, path: String, settings: ImgproxySettings) throws(ProxyError) {
        guard !settings.signers.isEmpty else {
            if signature.contains(":") { throw .imgproxyMalformedSignature }
            return
        }
        if settings.trustedSignatures.contains(signature) { return }
        guard let mac = ProxyRequest.base64URLDecoded(Substring(signature.trimmingSuffix("="))) else {
            throw .imgproxySignature("Invalid signature encoding")
        }
        guard settings.signers.contains(where: { $0.isValid(truncated: mac, size: settings.signatureSize, for: path) }) else {
            throw .imgproxySignature("Invalid signature")
        }
    }

    /// imgproxy's `RedenormalizePath`: `%3A` back to `:` in the options, `scheme:/x` back to
    /// `scheme://x` (`local:///x`) in a plain source.
    public static func redenormalized(_ path: String) -> String {
        let options: String, plain: String?
        if path.hasPrefix("plain/") {
            options = ""
            plain = String(path.dropFirst(6))
        } else if let range = path.firstRangeOfPlainSegment() {
            options = String(path[..<range.lowerBound])
            plain = String(path[range.upperBound...])
        } else {
            options = path
            plain = nil
        }
        let fixed = options.utf8.contains(UInt8(ascii: "%")) ? options.replacingOccurrences(of: "%3A", with: ":") : options
        guard var plain else { return fixed.hasPrefix("/") ? String(fixed.dropFirst()) : fixed }
        if let colon = plain.firstIndex(of: ":"), plain[..<colon].allSatisfy({ !$0.isWhitespace }), !plain[..<colon].isEmpty {
            let after = plain[plain.index(after: colon)...]
            if after.hasPrefix("/"), let next = after.dropFirst().first, next != "/" {
                let scheme = plain[..<colon]
                plain = scheme + "://" + (scheme == "local" ? "/" : "") + after.dropFirst()
            }
        }
        let joined = fixed + "/plain/" + plain
        return joined.hasPrefix("/") ? String(joined.dropFirst()) : joined
    }

    /// The source text and its extension, from `plain/…@ext` or base64url `….ext` (whose last
    /// `/` part is a file name to drop when `includesFilename`).
    static func decodeSource(_ parts: [String], includesFilename: Bool = false) throws(ProxyError) -> (String, String?) {
        guard !parts.isEmpty else { throw .imgproxyInvalidURL("Image URL is empty") }
        if parts[0] == "plain", parts.count > 1 {
            let encoded = parts.dropFirst().joined(separator: "/")
            let pieces = encoded.imgproxyArguments(separatedBy: "@")
            guard !pieces[0].isEmpty else { throw .imgproxyInvalidURL("Image URL is empty") }
            guard pieces.count <= 2 else { throw .imgproxyInvalidURL("Multiple formats are specified: \(encoded)") }
            guard let text = ProxyRequest.percentDecoded(pieces[0]) else { throw .imgproxyInvalidURL("Invalid url encoding: \(encoded)") }
            return (text, pieces.count == 2 ? pieces[1] : nil)
        }
        let encoded = (includesFilename && parts.count > 1 ? parts.dropLast() : parts[...]).joined()
        let pieces = encoded.imgproxyArguments(separatedBy: ".")
        guard !pieces[0].isEmpty else { throw .imgproxyInvalidURL("Image URL is empty") }
        guard pieces.count <= 2 else { throw .imgproxyInvalidURL("Multiple formats are specified: \(encoded)") }
        guard let data = ProxyRequest.base64URLDecoded(Substring(pieces[0].trimmingSuffix("="))), let text = String(data: data, encoding: .utf8) else {
            throw .imgproxyInvalidURL("Invalid url encoding: \(encoded)")
        }
        return (text, pieces.count == 2 ? pieces[1] : nil)
    }
}

extension String {
    /// The parts between the separators, empty ones kept (as Foundation's
    /// `components(separatedBy:)`, which costs several times more per call on Linux); one
    /// request's path is split this way once per option.
    func imgproxyArguments(separatedBy separator: String) -> [String] {
        guard separator.utf8.count == 1, let byte = separator.utf8.first, byte < 0x80 else { return components(separatedBy: separator) }
        return utf8.split(separator: byte, omittingEmptySubsequences: false).map { String(Substring($0)) }
    }

    /// Where `/plain/` first occurs, by a byte scan (Foundation's `range(of:)` and the standard
    /// library's generic `firstRange(of:)` cost microseconds a call).
    func firstRangeOfPlainSegment() -> Range<String.Index>? {
        let needle: [UInt8] = Array("/plain/".utf8)
        let bytes = utf8
        var start = bytes.startIndex
        while let slash = bytes[start...].firstIndex(of: needle[0]) {
            var end = slash, matched = 0
            while matched < needle.count, end != bytes.endIndex, bytes[end] == needle[matched] {
                matched += 1
                end = bytes.index(after: end)
            }
            if matched == needle.count { return slash..<end }
            start = bytes.index(after: slash)
        }
        return nil
    }

    func trimmingSuffix(_ character: Character) -> String {
        var text = self[...]
        while text.last == character { text.removeLast() }
        return String(text)
    }
}
