import Foundation
import ImageKernel

extension ImageProxyService {
    /// The 200 (or 304) answer for a result.
    func success(_ rendered: Rendered, cacheType: String, route: Route, ifNoneMatch: String?) -> ProxyResponse {
        var headers: [(name: String, value: String)] = [
            ("ETag", rendered.etag), ("Cache-Control", "public, max-age=\(configuration.maxAge)"),
        ]
        switch (route.negotiated, route.readsClientHints) {
        case (true, false): headers.append(("Vary", "Accept"))
        case (true, true): headers.append(("Vary", "Accept, " + ImgproxyClientHints.varyNames))
        case (false, true): headers.append(("Vary", ImgproxyClientHints.varyNames))
        case (false, false): break
        }
        if let ifNoneMatch, Self.matches(ifNoneMatch, etag: rendered.etag) {
            return ProxyResponse(status: 304, headers: headers, body: Data(), cacheType: cacheType)
        }
        headers.insert(contentsOf: [("Content-Type", rendered.format.mediaType), ("Content-Length", "\(rendered.data.count)")], at: 0)
        if let disposition = route.disposition { headers.append(("Content-Disposition", disposition.value(for: rendered.format))) }
        return ProxyResponse(status: 200, headers: headers, body: rendered.data, cacheType: cacheType)
    }

    /// `If-None-Match` semantics (weak comparison, as RFC 9110 asks for it): `*` or any listed tag.
    static func matches(_ ifNoneMatch: String, etag: String) -> Bool {
        let bare = etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
        for item in ifNoneMatch.split(separator: ",") {
            var tag = item.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            if tag == bare { return true }
        }
        return false
    }

    /// A strong validator of the result: a digest of what identifies the source's bytes
    /// (`source`: the origin's strong `ETag` with the URL it is for, else the SHA-256 of the bytes)
    /// and of what was done to them.
    static func etag(source: Data, key: String, format: ImageFormat) -> String {
        "\"" + Digest.base64URL(of: [source, Data("\n\(key)\n\(format.rawValue)".utf8)]).prefix(27) + "\""
    }
}
