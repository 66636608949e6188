import Foundation

extension ImageFormat {
    /// Identifies the format of encoded bytes by their magic numbers, never by file name.
    ///
    /// Recognises PNG, JPEG, GIF, WebP, HEIC, HEIF, AVIF (ISO-BMFF `ftyp` brands), TIFF (both byte
    /// orders, classic and BigTIFF), BMP, SVG (an `<svg` element near the start, after an optional XML prolog), PDF,
    /// ICO (and CUR, reported as ``ico``) and JPEG XL (the bare codestream `FF 0A` and the ISO-BMFF
    /// container's signature box). Returns ``unknown`` for anything else, including empty input.
    public static func sniff(_ data: Data) -> ImageFormat {
        data.withUnsafeBytes { sniff(UnsafeRawBufferPointer($0)) }
    }

    /// Identifies the format of encoded bytes; see ``sniff(_:)-(Data)``.
    public static func sniff(_ bytes: [UInt8]) -> ImageFormat {
        bytes.withUnsafeBytes { sniff($0) }
    }

    /// Identifies the format of encoded bytes; see ``sniff(_:)-(Data)``.
    public static func sniff(_ b: UnsafeRawBufferPointer) -> ImageFormat {
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            guard b.count >= offset + magic.count else { return false }
            for (i, byte) in magic.enumerated() where b[offset + i] != byte { return false }
            return true
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        // Classic TIFF (42) and BigTIFF (43), little- and big-endian.
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts([0x49, 0x49, 0x2B, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2B]) { return .tiff }
        if starts(Array("BM".utf8)) && b.count >= 14 { return .bmp }
        if starts(Array("%PDF-".utf8)) { return .pdf }
        // ICO (type 1) and CUR (type 2, the same container with hotspots) with at least one entry.
        if (starts([0x00, 0x00, 0x01, 0x00]) || starts([0x00, 0x00, 0x02, 0x00])) && b.count >= 6 && (b[4] != 0 || b[5] != 0) { return .ico }
        // JPEG XL: a bare codestream, or the container's 12-byte `JXL ` signature box.
        if starts([0xFF, 0x0A]) { return .jxl }
        if starts([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jxl }
        if starts(Array("ftyp".utf8), at: 4) { return sniffISOBMFF(b) }
        if looksLikeSVG(b) { return .svg }
        return .unknown
    }

    /// HEIC / HEIF / AVIF from the `ftyp` box's major and compatible brands.
    private static func sniffISOBMFF(_ b: UnsafeRawBufferPointer) -> ImageFormat {
        let boxSize = Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
        let end = min(b.count, max(16, boxSize))
        var brands: [String] = []
        var offset = 8
        while offset + 4 <= end {
            if offset != 12 {  // bytes 12..<16 hold the minor version, not a brand
                brands.append(String(decoding: b[offset..<offset + 4], as: UTF8.self))
            }
            offset += 4
        }
        let major = brands.first ?? ""
        if ["avif", "avis"].contains(major) { return .avif }
        if ["heic", "heix", "heim", "heis", "hevc", "hevx"].contains(major) { return .heic }
        if ["mif1", "msf1", "heif"].contains(major) {
            if brands.contains("avif") || brands.contains("avis") { return .avif }
            if brands.contains(where: { ["heic", "heix", "heim", "heis"].contains($0) }) { return .heic }
            return .heif
        }
        if brands.contains("avif") { return .avif }
        if brands.contains("heic") { return .heic }
        if brands.contains("mif1") { return .heif }
        return .unknown
    }

    /// SVG is text: the document element is `<svg` (or a prefixed `<x:svg`), after an optional
    /// UTF-8 byte order mark, whitespace, the XML declaration and other processing instructions,
    /// comments and a DOCTYPE (internal subset included), read for at most 64 KiB. Input that ends inside that prolog is not SVG yet.
    private static func looksLikeSVG(_ b: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        if b.count >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF { i = 3 }
        func at(_ text: StaticString, _ offset: Int) -> Bool {
            let count = text.utf8CodeUnitCount
            guard offset + count <= b.count else { return false }
            for k in 0..<count where b[offset + k] != text.utf8Start[k] { return false }
            return true
        }
        /// The index after the first `terminator` at or after `from`, or nil.
        func after(_ terminator: StaticString, from: Int) -> Int? {
            var j = from
            while j < min(b.count, svgPrologLimit) {
                if at(terminator, j) { return j + terminator.utf8CodeUnitCount }
                j += 1
            }
            return nil
        }
        while i < min(b.count, svgPrologLimit) {
            let byte = b[i]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                i += 1
            } else if at("<?", i) {
                guard let next = after("?>", from: i + 2) else { return false }
                i = next
            } else if at("<!--", i) {
                guard let next = after("-->", from: i + 4) else { return false }
                i = next
            } else if at("<!DOCTYPE", i) {
                // Up to the `>` outside the internal subset's brackets and outside quotes.
                var j = i + 9
                var inSubset = false
                var quote: UInt8 = 0
                while j < min(b.count, svgPrologLimit) {
                    let c = b[j]
                    if quote != 0 {
                        if c == quote { quote = 0 }
                    } else if c == 0x22 || c == 0x27 {
                        quote = c
                    } else if at("<!--", j) {
                        guard let next = after("-->", from: j + 4) else { return false }
                        j = next
                        continue
                    } else if c == 0x5B {
                        inSubset = true
                    } else if c == 0x5D {
                        inSubset = false
                    } else if c == 0x3E && !inSubset {
                        break
                    }
                    j += 1
                }
                guard j < min(b.count, svgPrologLimit) else { return false }
                i = j + 1
            } else if byte == 0x3C {
                // The document element: `svg`, or `prefix:svg`, then a delimiter.
                var j = i + 1
                var local = j
                while j < b.count, j - i < 64, isNameByte(b[j]) {
                    if b[j] == 0x3A { local = j + 1 }
                    j += 1
                }
                guard j - local == 3, at("svg", local), j < b.count else { return false }
                return [0x20, 0x09, 0x0A, 0x0D, 0x3E, 0x2F].contains(b[j])
            } else {
                return false
            }
        }
        return false
    }

    /// How far the SVG sniffer reads through an XML prolog (declaration, comments, DOCTYPE).
    static let svgPrologLimit = 65536

    private static func isNameByte(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x5F || c == 0x2E || c == 0x3A
            || c >= 0x80
    }
}
