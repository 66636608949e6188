import Foundation

/// The XMP rewriting the metadata policy needs, done on the packet's text: no XML parser, only
/// whole elements and attributes copied between well-formed boundaries, so a hostile packet can
/// at worst lose properties.
///
/// Properties are found by their usual prefixes (`dc:`, `xmpRights:`, `tiff:`, `rdf:`); a packet
/// that binds those namespaces to other prefixes keeps nothing under ``MetadataPolicy/copyright``.
enum XMPPacket {
    /// The properties ``MetadataPolicy/copyright`` keeps.
    static let copyrightProperties = [
        "dc:rights", "dc:creator", "xmpRights:Marked", "xmpRights:WebStatement", "xmpRights:UsageTerms",
        "xmpRights:Owner", "xmpRights:Certificate",
    ]

    /// A minimal packet with the copyright properties the source has, or nil when it has none.
    static func copyright(of packet: [UInt8]) -> [UInt8]? {
        let text = String(decoding: packet, as: UTF8.self)
        let properties = copyrightProperties.compactMap { property(named: $0, in: text) }
        guard !properties.isEmpty else { return nil }
        let body = """
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
            <x:xmpmeta xmlns:x="adobe:ns:meta/">
             <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
              <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmpRights="http://ns.adobe.com/xap/1.0/rights/">
            \(properties.map { "   " + $0 }.joined(separator: "\n"))
              </rdf:Description>
             </rdf:RDF>
            </x:xmpmeta>
            <?xpacket end="w"?>
            """
        return Array(body.utf8)
    }

    /// The packet with `tiff:Orientation` (attribute or element) saying `orientation`; other
    /// bytes unchanged.
    static func settingOrientation(_ packet: [UInt8], to orientation: ExifOrientation) -> [UInt8] {
        var text = String(decoding: packet, as: UTF8.self)
        let value = String(orientation.rawValue)
        var changed = false
        for (open, close) in [("tiff:Orientation=\"", "\""), ("tiff:Orientation='", "'"), ("<tiff:Orientation>", "</tiff:Orientation>")] {
            // One pass, appending: each byte is searched once, however many times the property repeats.
            var rewritten = ""
            var copiedUpTo = text.startIndex
            while let start = text.range(of: open, range: copiedUpTo..<text.endIndex),
                let end = text.range(of: close, range: start.upperBound..<text.endIndex)
            {
                rewritten += text[copiedUpTo..<start.upperBound]
                rewritten += value
                copiedUpTo = end.lowerBound
                changed = true
            }
            guard copiedUpTo != text.startIndex else { continue }
            rewritten += text[copiedUpTo...]
            text = rewritten
        }
        return changed ? Array(text.utf8) : packet
    }

    /// The property as an element: the source's element copied whole, or an attribute
    /// (`name="value"` on an `rdf:Description`) turned into `<name>value</name>`.
    static func property(named name: String, in text: String) -> String? {
        var searchFrom = text.startIndex
        while let open = text.range(of: "<" + name, range: searchFrom..<text.endIndex) {
            searchFrom = open.upperBound
            guard open.upperBound < text.endIndex, " \t\r\n>/".contains(text[open.upperBound]) else { continue }
            guard let tagEnd = text.range(of: ">", range: open.upperBound..<text.endIndex) else { return nil }
            if text[text.index(before: tagEnd.upperBound)...].hasPrefix(">"), text[..<tagEnd.lowerBound].hasSuffix("/") {
                return String(text[open.lowerBound..<tagEnd.upperBound])
            }
            guard let close = text.range(of: "</" + name + ">", range: tagEnd.upperBound..<text.endIndex) else { return nil }
            return String(text[open.lowerBound..<close.upperBound])
        }
        for quote in ["\"", "'"] {
            searchFrom = text.startIndex
            while let attribute = text.range(of: name + "=" + quote, range: searchFrom..<text.endIndex) {
                searchFrom = attribute.upperBound
                guard attribute.lowerBound > text.startIndex, " \t\r\n".contains(text[text.index(before: attribute.lowerBound)]) else { continue }
                guard let end = text.range(of: quote, range: attribute.upperBound..<text.endIndex) else { return nil }
                let value = text[attribute.upperBound..<end.lowerBound]
                guard !value.contains("<") else { return nil }
                return "<\(name)>\(value)</\(name)>"
            }
        }
        return nil
    }
}
