/// One element of an SVG document as the budget scan sees it: what it is, where it sits and what
/// it refers to. Attribute values have the document's own entities expanded.
struct ScannedElement {
    /// The local name (`svg:rect` → `rect`), case kept (SVG is case-sensitive).
    var name: Substring
    var parent: Int
    var attributes: [(name: Substring, value: String)] = []

    func attribute(_ wanted: String) -> String? {
        attributes.first { $0.name == wanted || $0.name.hasSuffix(":" + wanted) }?.value
    }
}

/// A single pass over the bytes of an SVG document that finds its elements, their attributes, its
/// `<style>` text and its entity declarations, without building a DOM. It reads markup the way
/// libxml2 does where that matters to the budget (comments, CDATA, processing instructions, the
/// DOCTYPE's internal subset, quoted attribute values) and gives up, rather than guessing, on
/// what it cannot follow: ``SVGScan/Failure``.
struct SVGScan {
    var elements: [ScannedElement] = []
    /// The text of every `<style>` element, concatenated.
    var css = ""
    /// Internal-subset general entities: name → replacement text.
    var entities: [Substring: String] = [:]

    enum Failure: Error {
        /// Markup the scan does not follow (an entity whose value holds markup: libxml2 would
        /// parse elements the scan never saw).
        case unsupported(String)
        /// More than the scan is willing to hold.
        case tooLarge(String)
    }

    /// Most elements a document may have; libxml2 and librsvg would take seconds on more.
    static let maxElements = 1_000_000
    /// Longest attribute value after entity expansion.
    static let maxExpandedValue = 1 << 20

    init(_ b: UnsafeRawBufferPointer) throws(Failure) {
        var i = 0
        var stack: [Int] = []
        let n = b.count
        func at(_ text: StaticString, _ offset: Int) -> Bool {
            let count = text.utf8CodeUnitCount
            guard offset + count <= n else { return false }
            for k in 0..<count where b[offset + k] != text.utf8Start[k] { return false }
            return true
        }
        func find(_ text: StaticString, from: Int) -> Int {
            var j = from
            while j < n {
                if at(text, j) { return j }
                j += 1
            }
            return n
        }
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
        func isNameEnd(_ c: UInt8) -> Bool { isSpace(c) || c == 0x3E || c == 0x2F || c == 0x3D }
        func text(_ from: Int, _ to: Int) -> String { String(decoding: UnsafeRawBufferPointer(rebasing: b[from..<max(from, min(to, n))]), as: UTF8.self) }
        var inStyle: Bool { stack.last.map { elements[$0].name == "style" } ?? false }

        while i < n {
            guard b[i] == 0x3C else {
                let next = find("<", from: i)
                if inStyle { css += text(i, next) }
                i = next
                continue
            }
            if at("<!--", i) {
                i = find("-->", from: i + 4) + 3
            } else if at("<![CDATA[", i) {
                let end = find("]]>", from: i + 9)
                if inStyle { css += text(i + 9, end) }
                i = end + 3
            } else if at("<?", i) {
                i = find("?>", from: i + 2) + 2
            } else if at("<!DOCTYPE", i) {
                i = try scanDoctype(b, from: i + 9)
            } else if at("</", i) {
                if !stack.isEmpty { stack.removeLast() }
                i = find(">", from: i + 2) + 1
            } else {
                var j = i + 1
                var local = j
                while j < n, !isNameEnd(b[j]) {
                    if b[j] == 0x3A { local = j + 1 }
                    j += 1
                }
                guard elements.count < Self.maxElements else { throw .tooLarge("more than \(Self.maxElements) elements") }
                var element = ScannedElement(name: Substring(text(local, j)), parent: stack.last ?? -1)
                var selfClosing = false
                while j < n {
                    while j < n, isSpace(b[j]) { j += 1 }
                    guard j < n else { break }
                    if b[j] == 0x3E { j += 1; break }
                    if b[j] == 0x2F { selfClosing = true; j += 1; continue }
                    let nameStart = j
                    while j < n, !isNameEnd(b[j]) { j += 1 }
                    let name = Substring(text(nameStart, j))
                    while j < n, isSpace(b[j]) { j += 1 }
                    guard j < n, b[j] == 0x3D else {
                        if j == nameStart { j += 1 }
                        continue
                    }
                    j += 1
                    while j < n, isSpace(b[j]) { j += 1 }
                    guard j < n, b[j] == 0x22 || b[j] == 0x27 else { continue }
                    let quote = b[j]
                    var end = j + 1
                    while end < n, b[end] != quote { end += 1 }
                    element.attributes.append((name, try expand(text(j + 1, end))))
                    j = end + 1
                }
                elements.append(element)
                if !selfClosing { stack.append(elements.count - 1) }
                i = j
            }
        }
    }

    /// Reads the DOCTYPE up to its closing `>`, keeping the internal subset's general entities.
    private mutating func scanDoctype(_ b: UnsafeRawBufferPointer, from start: Int) throws(Failure) -> Int {
        var j = start
        var quote: UInt8 = 0
        var depth = 0
        var declaration = [UInt8]()
        while j < b.count {
            let c = b[j]
            if depth > 0 { declaration.append(c) }
            if quote != 0 {
                if c == quote { quote = 0 }
            } else if c == 0x22 || c == 0x27 {
                quote = c
            } else if c == 0x5B {
                depth += 1
            } else if c == 0x5D {
                depth -= 1
            } else if c == 0x3E && depth <= 0 {
                break
            }
            j += 1
        }
        try readEntities(String(decoding: declaration, as: UTF8.self))
        return j + 1
    }

    /// `<!ENTITY name "value">` declarations (parameter and external entities are skipped:
    /// libxml2 loads neither for librsvg).
    private mutating func readEntities(_ subset: String) throws(Failure) {
        var rest = Substring(subset)
        while let range = rest.range(of: "<!ENTITY") {
            rest = rest[range.upperBound...].drop { $0.isWhitespace }
            if rest.hasPrefix("%") { continue }
            let name = rest.prefix { !$0.isWhitespace }
            rest = rest.dropFirst(name.count).drop { $0.isWhitespace }
            guard let quote = rest.first, quote == "\"" || quote == "'" else { continue }
            let body = rest.dropFirst()
            guard let close = body.firstIndex(of: quote) else { break }
            let value = String(body[..<close])
            if value.contains("<") {
                throw .unsupported("the entity '\(name)' holds markup, which the budget scan does not expand")
            }
            entities[name] = value
            rest = body[close...]
        }
    }

    /// Replaces references to the document's entities in an attribute value, as libxml2 will.
    private func expand(_ value: String) throws(Failure) -> String {
        guard !entities.isEmpty, value.contains("&") else { return value }
        var current = value
        for _ in 0..<16 {
            var out = ""
            var changed = false
            var rest = Substring(current)
            while let amp = rest.firstIndex(of: "&") {
                out += rest[..<amp]
                let after = rest[rest.index(after: amp)...]
                if let semi = after.firstIndex(of: ";"), let replacement = entities[after[..<semi]] {
                    out += replacement
                    changed = true
                    rest = after[after.index(after: semi)...]
                } else {
                    out += "&"
                    rest = after
                }
                if out.utf8.count > Self.maxExpandedValue { throw .tooLarge("an attribute value expands past \(Self.maxExpandedValue) bytes") }
            }
            out += rest
            current = out
            if !changed { return current }
        }
        throw .unsupported("entity references nested more than 16 deep")
    }
}
