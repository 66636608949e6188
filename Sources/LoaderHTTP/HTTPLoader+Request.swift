import Foundation
import ImageKernel

extension HTTPLoader {
    /// Builds the final request for one load: merged headers, validators, the headers filter and
    /// the request modifier, validated so that nothing can inject extra header lines.
    func makeSpec(_ request: ImageRequest, options: LoaderOptions, context: ImageContext) throws -> TransferSpec {
        guard canLoad(request.url), let host = request.url.host, !host.isEmpty else {
            throw ImageKernelError.http(.invalidURL, "not an http(s) URL with a host: \(request.url.absoluteString)")
        }
        var merged = HeaderMerge()
        merged.set("User-Agent", configuration.userAgent)
        merged.set(configuration.headers)
        merged.set(request.headers)
        if let headers = context.requestHeaders { merged.set(headers) }
        if let validators = request.cachedValidators {
            if let etag = validators.etag { merged.set("If-None-Match", etag) }
            if let lastModified = validators.lastModified { merged.set("If-Modified-Since", lastModified) }
        }
        var headers = merged.dictionary
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
        try Self.validate(outgoing)
        return TransferSpec(
            url: outgoing.url, headers: outgoing.headers,
            handleCookies: options.contains(.handleCookies),
            allowInvalidCertificates: options.contains(.allowInvalidSSLCertificates))
    }

    private static func validate(_ request: HTTPRequest) throws {
        // Bytes, not Characters: "\r\n" is one Character and would slip past a Character test.
        let control: (UInt8) -> Bool = { $0 < 0x20 || $0 == 0x7F }
        if request.url.absoluteString.utf8.contains(where: { control($0) || $0 == UInt8(ascii: " ") }) {
            throw ImageKernelError.http(.invalidURL, "the URL contains spaces or control characters")
        }
        for (name, value) in request.headers {
            let badName = name.isEmpty || name.utf8.contains { control($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: " ") }
            if badName || value.utf8.contains(where: { control($0) && $0 != UInt8(ascii: "\t") }) {
                throw ImageKernelError.http(.invalidArgument, "invalid request header \(name.debugDescription)")
            }
        }
    }
}

/// Header merging where names compare case-insensitively and later values win.
private struct HeaderMerge {
    private var entries: [String: (name: String, value: String)] = [:]

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
