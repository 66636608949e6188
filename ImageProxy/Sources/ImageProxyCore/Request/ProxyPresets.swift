import Foundation

/// Named specs, imgproxy's presets: `--preset NAME=SPEC` or a file of `NAME=SPEC` lines, named
/// in a request as `preset:NAME` (or `pr:NAME`, several names as `preset:A:B`).
///
/// A preset is expanded in place, before the spec is read, into its segments: steps and options
/// (`q:`, `f:`, `max_bytes:`, …) alike, and other presets it names. Each preset is expanded once,
/// when the table is made: a cycle (`a` names `b`, `b` names `a`), a name no preset has, or an
/// expansion of more than ``maxSegments`` segments is a configuration error, so a request costs
/// one lookup per name. With ``onlyPresets``, a request's spec must consist of presets alone.
public struct ProxyPresets: Sendable, Equatable {
    /// Preset name → its segments, every preset it names expanded.
    public let expanded: [String: [String]]
    /// Refuse every spec that is not only presets (403 `presets_only`).
    public var onlyPresets: Bool

    /// Most segments a preset may expand to.
    public static let maxSegments = 64

    /// No presets.
    public init() {
        expanded = [:]
        onlyPresets = false
    }

    /// The presets `definitions` define (`NAME=SPEC` each, as ``definition(_:)`` reads them).
    /// - Throws: ``ProxyError`` 500 `invalid_configuration` for a bad definition, a name defined
    ///   twice, a name no preset has, a cycle or an expansion past ``maxSegments``.
    public init(definitions: [String], onlyPresets: Bool = false) throws(ProxyError) {
        var specs: [String: [String]] = [:]
        for text in definitions {
            let (name, segments) = try Self.definition(text)
            guard specs.updateValue(segments, forKey: name) == nil else { throw Self.configuration("the preset \(name) is defined twice") }
        }
        var expanded: [String: [String]] = [:]
        func expand(_ name: String, path: [String]) throws(ProxyError) -> [String] {
            if let done = expanded[name] { return done }
            guard !path.contains(name) else { throw Self.configuration("presets name each other in a cycle: \((path + [name]).joined(separator: " → "))") }
            guard let segments = specs[name] else {
                throw Self.configuration("the preset \(path.last ?? name) names \(name), which is not defined")
            }
            var out: [String] = []
            for segment in segments {
                if let names = Self.presetNames(in: Substring(segment)) {
                    for inner in names { out += try expand(String(inner), path: path + [name]) }
                } else {
                    out.append(segment)
                }
                guard out.count <= Self.maxSegments else { throw Self.configuration("the preset \(name) expands to more than \(Self.maxSegments) segments") }
            }
            expanded[name] = out
            return out
        }
        for name in specs.keys.sorted() { _ = try expand(name, path: []) }
        self.expanded = expanded
        self.onlyPresets = onlyPresets
    }

    /// `NAME=SPEC`: a name of letters, digits, `-` and `_`, and a spec of `/`-separated segments
    /// (empty segments dropped; an empty spec is allowed).
    public static func definition(_ text: String) throws(ProxyError) -> (name: String, segments: [String]) {
        guard let equals = text.firstIndex(of: "=") else { throw configuration("\(text.prefix(80)): a preset is NAME=SPEC") }
        let name = text[..<equals].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.utf8.count <= 64, name.unicodeScalars.allSatisfy(Self.nameCharacters.contains) else {
            throw configuration("\(name.prefix(80)): a preset name is 1–64 letters, digits, - or _")
        }
        let spec = text[text.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        return (name, spec.split(separator: "/").map(String.init))
    }

    /// The definitions in a presets file: one `NAME=SPEC` a line; blank lines and lines starting
    /// with `#` skipped.
    public static func definitions(inFile text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// The names of a `preset:A[:B…]` (or `pr:…`) segment, nil for any other segment.
    static func presetNames(in segment: Substring) -> [Substring]? {
        let rest: Substring
        if segment.hasPrefix("preset:") {
            rest = segment.dropFirst(7)
        } else if segment.hasPrefix("pr:") {
            rest = segment.dropFirst(3)
        } else {
            return nil
        }
        return rest.split(separator: ":", omittingEmptySubsequences: false)
    }

    /// `segments` with every preset segment replaced by its expansion.
    /// - Throws: ``ProxyError`` 400 `unknown_preset`; 403 `presets_only` when ``onlyPresets`` and
    ///   a segment is not a preset, or there is none.
    func expand(_ segments: [Substring]) throws(ProxyError) -> [Substring] {
        if onlyPresets {
            guard !segments.isEmpty else { throw Self.presetsOnly("this service serves presets only: the spec names none") }
        }
        guard !expanded.isEmpty || onlyPresets else {
            if let names = segments.lazy.compactMap(Self.presetNames).first { throw Self.unknown(names.first ?? "") }
            return segments
        }
        var out: [Substring] = []
        out.reserveCapacity(segments.count)
        for segment in segments {
            guard let names = Self.presetNames(in: segment) else {
                if onlyPresets { throw Self.presetsOnly("this service serves presets only: \(segment.prefix(80)) is not a preset") }
                out.append(segment)
                continue
            }
            for name in names {
                guard let expansion = expanded[String(name)] else { throw Self.unknown(name) }
                out += expansion.map { Substring($0) }
            }
        }
        return out
    }

    static let nameCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    private static func configuration(_ message: String) -> ProxyError { ProxyError(status: 500, code: "invalid_configuration", message: message) }
    private static func unknown(_ name: Substring) -> ProxyError {
        ProxyError(status: 400, code: "unknown_preset", message: "no preset is named \(name.prefix(80))")
    }
    private static func presetsOnly(_ message: String) -> ProxyError { ProxyError(status: 403, code: "presets_only", message: message) }
}
