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

    /// The extension of the key's path: of the URL path when the key parses as a URL, else of the
    /// text before any `?` or `#`, so a query never supplies one. NUL, other control characters,
    /// `:`, `/` and `\` are removed; an extension longer than `maxLength` bytes is dropped.
    static func pathExtension(ofKey key: String, maxLength: Int) -> String {
        let path: Substring
        if let components = URLComponents(string: key) {
            path = Substring(components.path)
        } else {
            path = key.prefix { $0 != "?" && $0 != "#" }
        }
        var trimmed = path
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        let lastComponent = trimmed.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = lastComponent.lastIndex(of: "."), dot != lastComponent.startIndex else { return "" }
        let raw = lastComponent[lastComponent.index(after: dot)...]
        let cleaned = String(String.UnicodeScalarView(raw.unicodeScalars.filter(isAllowedInExtension)))
        return cleaned.utf8.count > maxLength ? "" : cleaned
    }

    private static func isAllowedInExtension(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F: return false
        case UInt32(UInt8(ascii: ":")), UInt32(UInt8(ascii: "/")), UInt32(UInt8(ascii: "\\")): return false
        default: return true
        }
    }
}
