import Crypto
import Foundation

/// Turns cache keys into file names: hex digest of every UTF-8 byte of the key, plus the key's
/// sanitised extension. The digest alone decides where an entry lives, so no key text can name a
/// path outside the directory.
struct EntryNaming: Sendable {
    /// The file names an entry for one key may have, in lookup order.
    struct Names: Sendable, Hashable {
        /// `<digest>.<ext>`, or `<digest>` when the key has no usable extension; stores write this.
        var primary: String
        /// `<digest>` when ``primary`` has an extension: reads fall back to it (SDWebImage's
        /// entries from before it kept extensions).
        var fallback: String?

        var all: [String] { fallback.map { [primary, $0] } ?? [primary] }
    }

    let naming: DiskCache.FileNaming

    /// The longest extension kept, in UTF-8 bytes: a file name must fit in `NAME_MAX` (255).
    var maxExtensionLength: Int { 255 - digestHexLength - 1 }

    var digestHexLength: Int { naming == .sha256 ? 64 : 32 }

    func names(forKey key: String) -> Names {
        let digest = hexDigest(of: key)
        let ext = Self.pathExtension(ofKey: key, maxLength: maxExtensionLength)
        if ext.isEmpty { return Names(primary: digest, fallback: nil) }
        return Names(primary: digest + "." + ext, fallback: digest)
    }

    /// Lower-case hex of the key's digest.
    func hexDigest(of key: String) -> String {
        var key = key
        return key.withUTF8 { bytes in
            switch naming {
            case .sha256: return Self.hex(SHA256.hash(data: bytes))
            case .md5: return Self.hex(Insecure.MD5.hash(data: bytes))
            }
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in digest {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The extension of the key's path: the text after any `scheme://authority` (or `//authority`)
    /// and before the first `?` or `#`, so neither the host nor the query ever supplies one.
    /// Percent-escapes in it are decoded; NUL, other control characters, `:`, `/` and `\` are
    /// removed; an extension longer than `maxLength` UTF-8 bytes is dropped.
    ///
    /// Parsed by hand rather than with `URLComponents`: it is on every read and store, and the
    /// same key must give the same name whatever Foundation's URL parser accepts.
    static func pathExtension(ofKey key: String, maxLength: Int) -> String {
        var path = key.utf8.prefix { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        if let authority = authorityStart(path) {
            let rest = path[authority...]
            path = rest.firstIndex(of: UInt8(ascii: "/")).map { rest[$0...] } ?? rest[rest.endIndex...]
        }
        while path.last == UInt8(ascii: "/") { path = path.dropLast() }
        let lastComponent = path.lastIndex(of: UInt8(ascii: "/")).map { path[path.index(after: $0)...] } ?? path
        guard let dot = lastComponent.lastIndex(of: UInt8(ascii: ".")), dot != lastComponent.startIndex else {
            return ""
        }
        var raw = String(decoding: lastComponent[lastComponent.index(after: dot)...], as: UTF8.self)
        if raw.contains("%"), let decoded = raw.removingPercentEncoding { raw = decoded }
        let cleaned = String(String.UnicodeScalarView(raw.unicodeScalars.filter(isAllowedInExtension)))
        return cleaned.utf8.count > maxLength ? "" : cleaned
    }

    /// Where the authority starts: after `scheme://` (a scheme being a letter, then letters,
    /// digits, `+`, `-`, `.`) or after a leading `//`; nil when the key has neither.
    private static func authorityStart(_ text: Substring.UTF8View) -> Substring.UTF8View.Index? {
        if text.starts(with: "//".utf8) { return text.index(text.startIndex, offsetBy: 2) }
        guard let first = text.first, isLetter(first) else { return nil }
        var index = text.index(after: text.startIndex)
        while index != text.endIndex {
            let byte = text[index]
            if byte == UInt8(ascii: ":") {
                let rest = text[text.index(after: index)...]
                return rest.starts(with: "//".utf8) ? rest.index(rest.startIndex, offsetBy: 2) : nil
            }
            guard isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            else { return nil }
            index = text.index(after: index)
        }
        return nil
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    private static func isAllowedInExtension(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F: return false
        case UInt32(UInt8(ascii: ":")), UInt32(UInt8(ascii: "/")), UInt32(UInt8(ascii: "\\")): return false
        default: return true
        }
    }
}
