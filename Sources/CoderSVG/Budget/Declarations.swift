/// What the budget needs from an element's presentation attributes and CSS declarations: its
/// `url(#id)` references and whether it renders through an offscreen layer or a filter.
struct Declarations {
    struct Reference {
        var id: String
        /// A marker, drawn once per vertex.
        var isMarker: Bool
    }

    private(set) var references: [Reference] = []
    private(set) var makesLayer = false
    private(set) var hasFilter = false

    /// Reads `property: value; …` (a `style` attribute or a rule's block).
    mutating func read(_ block: String) {
        for declaration in block.split(separator: ";") {
            guard let colon = declaration.firstIndex(of: ":") else { continue }
            let property = declaration[..<colon].trimmingWhitespace().lowercased()
            add(property, String(declaration[declaration.index(after: colon)...]))
        }
    }

    /// One property (a presentation attribute or a declaration).
    mutating func add(_ property: String, _ value: String) {
        let name = property.lowercased()
        let trimmed = value.trimmingWhitespace().lowercased()
        var rest = Substring(value)
        while let open = rest.range(of: "url(") {
            rest = rest[open.upperBound...]
            let inside = rest.prefix { $0 != ")" }.trimmingWhitespace().filter { $0 != "'" && $0 != "\"" }
            if inside.hasPrefix("#") { references.append(Reference(id: String(inside.dropFirst()), isMarker: name.hasPrefix("marker"))) }
        }
        switch name {
        case "opacity":
            if let opacity = Double(trimmed) { makesLayer = makesLayer || opacity < 1 } else { makesLayer = true }
        case "filter":
            if trimmed != "none" { makesLayer = true; hasFilter = true }
        case "mask", "clip-path":
            if trimmed != "none" { makesLayer = true }
        case "mix-blend-mode":
            if trimmed != "normal" { makesLayer = true }
        case "isolation":
            if trimmed == "isolate" { makesLayer = true }
        default:
            break
        }
    }

    /// Adds another set's references and layers (a matching stylesheet rule).
    mutating func merge(_ other: Declarations) {
        references += other.references
        makesLayer = makesLayer || other.makesLayer
        hasFilter = hasFilter || other.hasFilter
    }
}

/// A stylesheet's rules that matter to the budget (those with references, layers or filters),
/// each with the last compound selector of each of its selectors.
struct CSSRules {
    private struct Selector {
        var type: Substring?
        var id: Substring?
        var classes: [Substring]
        /// A selector the scan cannot read: matches everything.
        var matchesAll: Bool
    }

    private var rules: [(selectors: [Selector], declarations: Declarations)] = []

    init(_ css: String) {
        // Comments out; at-rules (@media …) are flattened: their inner rules still count.
        var text = Substring(css)
        var clean = ""
        while let open = text.range(of: "/*") {
            clean += text[..<open.lowerBound]
            guard let close = text[open.upperBound...].range(of: "*/") else { text = ""; break }
            text = text[close.upperBound...]
        }
        clean += text
        var rest = Substring(clean)
        while let open = rest.firstIndex(of: "{") {
            var prelude = rest[..<open]
            if let inner = prelude.lastIndex(where: { $0 == "{" || $0 == "}" }) { prelude = prelude[prelude.index(after: inner)...] }
            let body = rest[rest.index(after: open)...]
            let close = body.firstIndex { $0 == "}" || $0 == "{" } ?? body.endIndex
            if close < body.endIndex && body[close] == "{" {  // an at-rule's block: read its rules
                rest = body
                continue
            }
            var declarations = Declarations()
            declarations.read(String(body[..<close]))
            if !declarations.references.isEmpty || declarations.makesLayer {
                let selectors = prelude.split(separator: ",").map { Self.selector($0) }
                rules.append((selectors, declarations))
            }
            rest = close < body.endIndex ? body[body.index(after: close)...] : ""
        }
    }

    private static func selector(_ text: Substring) -> Selector {
        let compound = text.split { $0 == " " || $0 == ">" || $0 == "+" || $0 == "~" || $0 == "\n" || $0 == "\t" }.last ?? ""
        if compound.isEmpty || compound.contains(where: { "*[:@".contains($0) }) {
            return Selector(type: nil, id: nil, classes: [], matchesAll: true)
        }
        var type: Substring?
        var id: Substring?
        var classes: [Substring] = []
        var parts = compound[...]
        let head = parts.prefix { $0 != "." && $0 != "#" }
        if !head.isEmpty { type = head }
        parts = parts.dropFirst(head.count)
        while let marker = parts.first {
            parts = parts.dropFirst()
            let name = parts.prefix { $0 != "." && $0 != "#" }
            parts = parts.dropFirst(name.count)
            if marker == "#" { id = name } else { classes.append(name) }
        }
        return Selector(type: type, id: id, classes: classes, matchesAll: false)
    }

    /// The declarations of every rule one of whose selectors may match `element`.
    func matching(_ element: ScannedElement) -> [Declarations] {
        guard !rules.isEmpty else { return [] }
        let id = element.attribute("id").map { Substring($0) }
        let classes = (element.attribute("class") ?? "").split(whereSeparator: \.isWhitespace)
        return rules.compactMap { rule in
            let matches = rule.selectors.contains { selector in
                selector.matchesAll
                    || ((selector.type == nil || selector.type == element.name) && (selector.id == nil || selector.id == id)
                        && selector.classes.allSatisfy { classes.contains($0) })
            }
            return matches ? rule.declarations : nil
        }
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> Substring {
        let text = Substring(self)
        let start = text.firstIndex { !$0.isWhitespace } ?? text.endIndex
        let end = text.lastIndex { !$0.isWhitespace }.map { text.index(after: $0) } ?? start
        return start < end ? text[start..<end] : ""
    }

}
