import Foundation
import ImageKernel

extension HTTPLoader {
    /// Builds the final request for one load: merged headers, validators, the headers filter and
    /// the request modifier, validated so that nothing can inject extra header lines.
    func makeSpec(_ request: ImageRequest, options: LoaderOptions, context: ImageContext) throws(ImageKernelError) -> TransferSpec {
        guard canLoad(request.url), let host = request.url.host, !host.isEmpty else {
            throw ImageKernelError.http(.invalidURL, "not an http(s) URL with a host: \(request.url.absoluteString)")
        }
        var headers = baseHeaders
        if !request.headers.isEmpty || context.requestHeaders != nil || request.cachedValidators != nil {
            var merged = HeaderMerge(baseHeaders)
            merged.set(request.headers)
            if let headers = context.requestHeaders { merged.set(headers) }
            if let validators = request.cachedValidators {
                if let etag = validators.etag { merged.set("If-None-Match", etag) }
                if let lastModified = validators.lastModified { merged.set("If-Modified-Since", lastModified) }
            }
            headers = merged.dictionary
        }
        if let filter = configuration.headersFilter { headers = filter(request.url, headers) }
        var outgoing = HTTPRequest(url: request.url, headers: headers)
        if let modifier = configuration.requestModifier {
            guard let modified = modifier.modified(outgoing) else {
                throw ImageKernelError.http(
                    .downloadRefused, "the request modifier refused \(request.url.absoluteString)", isTransient: true)
            }
            outgoing = modified
            guard canLoad(outgoing.url), outgoing.url.host?.isEmpty == false else {
                throw ImageKernelError.http(.invalidURL, "the request modifier produced a non-http(s) URL: \(outgoing.url.absoluteString)")
            }
        }
        try Self.validate(outgoing.url)
        if outgoing.headers != baseHeaders { try Self.validate(outgoing.headers) }
        return TransferSpec(
            url: outgoing.url, headers: outgoing.headers,
            handleCookies: options.contains(.handleCookies),
            allowInvalidCertificates: options.contains(.allowInvalidSSLCertificates),
            resolve: try TransferSpec.resolveLines(for: outgoing.url, pins: context[HTTPLoader.PinnedAddresses.self]))
    }

    // Bytes, not Characters: "\r\n" is one Character and would slip past a Character test.
    private static func isControl(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7F }

    private static func validate(_ url: URL) throws(ImageKernelError) {
        if url.absoluteString.utf8.contains(where: { isControl($0) || $0 == UInt8(ascii: " ") }) {
            throw ImageKernelError.http(.invalidURL, "the URL contains spaces or control characters")
        }
    }

    /// Header names must be tokens and values single lines, so nothing can inject header lines.
    static func validate(_ headers: [String: String]) throws(ImageKernelError) {
        let control = isControl
        for (name, value) in headers {
            let badName = name.isEmpty || name.utf8.contains { control($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: " ") }
            if badName || value.utf8.contains(where: { control($0) && $0 != UInt8(ascii: "\t") }) {
                throw ImageKernelError.http(.invalidArgument, "invalid request header \(name.debugDescription)")
            }
        }
    }
}

/// Header merging where names compare case-insensitively and later values win.
struct HeaderMerge {
    private var entries: [String: (name: String, value: String)] = [:]

    init() {}

    init(_ headers: [String: String]) { set(headers) }

    /// The headers every request starts from: the user agent, then the configured headers.
    static func base(_ configuration: HTTPLoader.Configuration) -> [String: String] {
        var merged = HeaderMerge()
        merged.set("User-Agent", configuration.userAgent)
        merged.set(configuration.headers)
        return merged.dictionary
    }

    mutating func set(_ name: String, _ value: String) {
        entries[name.lowercased()] = (name, value)
    }

    mutating func set(_ headers: [String: String]) {
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { set(name, value) }
    }

    var dictionary: [String: String] {
        Dictionary(entries.values.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }
}
