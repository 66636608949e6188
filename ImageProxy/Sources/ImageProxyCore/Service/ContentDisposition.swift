import Foundation
import ImageKernel

/// The `Content-Disposition` of a response whose request asked for a file name
/// (`filename:NAME`) or a download (`attachment`): `inline` or `attachment`, with the name and the
/// result's extension (RFC 6266).
///
/// The name is the request's, else the source's last path segment without its extension
/// (`image` when it has none), with any directory part dropped. `filename="…"` carries an ASCII
/// fallback (every other character, quote, backslash, `%`, `;` and control character as `_`, no
/// leading dot); when that differs from the name, `filename*=UTF-8''…` (RFC 8187, which replaced
/// RFC 5987) carries it exactly, percent-encoded.
struct ContentDisposition: Sendable, Hashable {
    /// The name before its extension.
    let name: String
    let attachment: Bool

    /// Longest name kept, in characters (before the extension).
    static let maxNameLength = 200

    /// The disposition `output` asks for, nil when it asks for none.
    init?(_ output: ProxyRequest.Output, source: URL) {
        guard output.disposes else { return nil }
        var name = output.filename ?? Self.stem(of: source)
        if let separator = name.lastIndex(where: { $0 == "/" || $0 == "\\" }) { name = String(name[name.index(after: separator)...]) }
        if name.isEmpty { name = "image" }
        self.name = String(name.prefix(Self.maxNameLength))
        attachment = output.attachment
    }

    /// The header's value for a result in `format`.
    func value(for format: ImageFormat) -> String {
        let fileExtension = "." + format.fileExtension
        let full = name.lowercased().hasSuffix(fileExtension) ? name : name + fileExtension
        var fallback = String(String.UnicodeScalarView(full.unicodeScalars.map { scalar in
            scalar.isASCII && scalar.value >= 0x20 && scalar.value < 0x7F && !"\"\\%;".unicodeScalars.contains(scalar) ? scalar : "_"
        }))
        if fallback.hasPrefix(".") { fallback = "_" + fallback.dropFirst() }
        var value = (attachment ? "attachment" : "inline") + "; filename=\"\(fallback)\""
        if fallback != full {
            value += "; filename*=UTF-8''" + (full.addingPercentEncoding(withAllowedCharacters: Self.attributeCharacters) ?? fallback)
        }
        return value
    }

    /// RFC 8187's `attr-char`: what `filename*` carries unencoded.
    static let attributeCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$&+-.^_`|~")

    /// The source's last path segment without its extension.
    static func stem(of source: URL) -> String {
        let last = source.lastPathComponent
        guard last != "/", !last.isEmpty else { return "image" }
        if let dot = last.lastIndex(of: "."), dot != last.startIndex { return String(last[..<dot]) }
        return last
    }
}
