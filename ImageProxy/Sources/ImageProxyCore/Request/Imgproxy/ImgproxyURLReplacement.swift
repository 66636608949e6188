import Foundation

/// One rewrite of `IMGPROXY_URL_REPLACEMENTS`: a source URL that starts with ``pattern`` has that
/// prefix replaced by ``replacement``, as imgproxy does.
///
/// In the pattern, `*` matches any run of characters without `/` and is captured; everything
/// else matches itself. The replacement names captures as Go's `regexp.Expand` does: `$1` or
/// `${1}` (the first `*`), `$0` (the whole prefix), `$$` for a dollar sign; a name that is not a capture's number stands
/// for nothing (`$1x` is the capture named `1x`, so nothing, exactly as in imgproxy).
public struct ImgproxyURLReplacement: Sendable, Hashable {
    public let pattern: String
    public let replacement: String
    private let expression: NSRegularExpression

    /// - Throws: ``ProxyError`` 500 `invalid_configuration` for a pattern that cannot compile
    ///   (never for imgproxy's wildcard grammar).
    public init(pattern: String, replacement: String) throws(ProxyError) {
        self.pattern = pattern
        self.replacement = replacement
        var regex = "^"
        for (index, part) in pattern.components(separatedBy: "*").enumerated() {
            if index > 0 { regex += "([^/]*)" }
            regex += NSRegularExpression.escapedPattern(for: part)
        }
        do {
            expression = try NSRegularExpression(pattern: regex)
        } catch {
            throw ProxyError(status: 500, code: "invalid_configuration", message: "URL replacement pattern \(pattern) does not compile")
        }
    }

    /// Reads `PATTERN=REPLACEMENT` (the replacement may hold more `=`).
    /// - Throws: ``ProxyError`` 500 `invalid_configuration` without a `=`.
    public init(definition: String) throws(ProxyError) {
        guard let equals = definition.firstIndex(of: "=") else {
            throw ProxyError(status: 500, code: "invalid_configuration", message: "invalid URL replacement \(definition): expected PATTERN=REPLACEMENT")
        }
        try self.init(pattern: String(definition[..<equals]), replacement: String(definition[definition.index(after: equals)...]))
    }

    /// `url` with its matching prefix replaced, or `url` as it is.
    public func apply(to url: String) -> String {
        let whole = NSRange(url.startIndex..., in: url)
        guard let match = expression.firstMatch(in: url, range: whole), let matched = Range(match.range, in: url) else { return url }
        var captures: [String] = []
        for index in 0..<match.numberOfRanges {
            captures.append(Range(match.range(at: index), in: url).map { String(url[$0]) } ?? "")
        }
        return expand(captures) + url[matched.upperBound...]
    }

    /// The replacement with `$n`/`${n}` expanded, as Go's `Regexp.Expand` (`captures[0]` is the
    /// whole match, `$0`).
    func expand(_ captures: [String]) -> String {
        var out = ""
        var rest = replacement[...]
        while let dollar = rest.firstIndex(of: "$") {
            out += rest[..<dollar]
            rest = rest[rest.index(after: dollar)...]
            if rest.first == "$" {
                out += "$"
                rest = rest.dropFirst()
                continue
            }
            let name: Substring
            if rest.first == "{" {
                guard let close = rest.firstIndex(of: "}") else {
                    out += "$"
                    continue
                }
                name = rest[rest.index(after: rest.startIndex)..<close]
                guard !name.isEmpty, name.allSatisfy(Self.isNameCharacter) else {
                    out += "$"
                    continue
                }
                rest = rest[rest.index(after: close)...]
            } else {
                name = rest.prefix(while: Self.isNameCharacter)
                guard !name.isEmpty else {
                    out += "$"
                    continue
                }
                rest = rest.dropFirst(name.count)
            }
            if let number = Int(name), number >= 0, number < captures.count { out += captures[number] }
        }
        return out + rest
    }

    static func isNameCharacter(_ c: Character) -> Bool { c == "_" || (c.isASCII && (c.isLetter || c.isNumber)) }

    public static func == (a: Self, b: Self) -> Bool { a.pattern == b.pattern && a.replacement == b.replacement }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(pattern)
        hasher.combine(replacement)
    }
}
