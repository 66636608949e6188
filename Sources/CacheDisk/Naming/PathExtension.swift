import Foundation

/// The extension a key contributes to its file name.
///
/// It is the extension of the key's path: the text after any `scheme://authority` (or a leading
/// `//authority`) and before the first `?` or `#`, so neither the host nor the query ever
/// supplies one. Percent-escapes in it are decoded; NUL, other control characters, `:`, `/` and
/// `\` are removed (SDWebImage strips NUL and `:`); an extension longer than the limit, in UTF-8
/// bytes, is dropped.
///
/// Parsed by hand rather than with `URLComponents`: it runs on every read and store, and the same
/// key must give the same name whatever Foundation's URL parser accepts.
enum PathExtension {
    static func of(_ key: String, maxLength: Int) -> String {
        var key = key
        return key.withUTF8 { of($0, maxLength: maxLength) }
    }

    static func of(_ b: UnsafeBufferPointer<UInt8>, maxLength: Int) -> String {
        var end = 0
        while end < b.count, b[end] != UInt8(ascii: "?"), b[end] != UInt8(ascii: "#") { end += 1 }
        var start = 0
        if let authority = authorityStart(b, end: end) {
            start = authority
            while start < end, b[start] != UInt8(ascii: "/") { start += 1 }
        }
        var stop = end
        while stop > start, b[stop - 1] == UInt8(ascii: "/") { stop -= 1 }
        var dot = stop - 1
        while dot >= start, b[dot] != UInt8(ascii: "."), b[dot] != UInt8(ascii: "/") { dot -= 1 }
        // No dot in the last component, or a dot that starts it (".hidden").
        guard dot > start, b[dot] == UInt8(ascii: "."), b[dot - 1] != UInt8(ascii: "/") else { return "" }
        let raw = UnsafeBufferPointer(rebasing: b[(dot + 1)..<stop])
        if raw.allSatisfy(isPlainExtensionByte) {
            return raw.count > maxLength ? "" : String(decoding: raw, as: UTF8.self)
        }
        var text = String(decoding: raw, as: UTF8.self)
        if text.contains("%"), let decoded = text.removingPercentEncoding { text = decoded }
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.filter(isAllowed)))
        return cleaned.utf8.count > maxLength ? "" : cleaned
    }

    /// ASCII letters, digits, `-`, `_`, `+`, `.`, `~`: kept as they are.
    private static func isPlainExtensionByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~")
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F: return false
        case UInt32(UInt8(ascii: ":")), UInt32(UInt8(ascii: "/")), UInt32(UInt8(ascii: "\\")): return false
        default: return true
        }
    }

    /// Where the authority starts: after `scheme://` (a letter, then letters, digits, `+`, `-`,
    /// `.`) or after a leading `//`; nil when the key has neither.
    private static func authorityStart(_ b: UnsafeBufferPointer<UInt8>, end: Int) -> Int? {
        if end >= 2, b[0] == UInt8(ascii: "/"), b[1] == UInt8(ascii: "/") { return 2 }
        guard end > 0, isLetter(b[0]) else { return nil }
        var i = 1
        while i < end {
            let byte = b[i]
            if byte == UInt8(ascii: ":") {
                return i + 2 < end && b[i + 1] == UInt8(ascii: "/") && b[i + 2] == UInt8(ascii: "/") ? i + 3 : nil
            }
            guard isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ".")
            else { return nil }
            i += 1
        }
        return nil
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
