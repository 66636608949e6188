import Foundation
import ImageKernel

/// A bounds-checked walk over a HEIF file's `meta` box that finds every size the file declares
/// before libheif allocates anything: each `ispe` property (images and tiles) and the output
/// size of each `grid` item (stored as item data, which libheif reads only when decoding); and
/// whether every coded image is monochrome (libheif 1.15 has no call that says so before decoding).
///
/// Anything malformed is left for libheif to report; the scan only refuses what it can read.
enum HEIFBoxScan {
    struct Box {
        var type: String
        /// The payload after the header.
        var body: Range<Int>
    }

    /// A size the file declares: what declares it (`ispe` or `grid`) and the size.
    struct Declared {
        var what: String
        var size: PixelSize
    }

    /// What the scan found.
    struct Findings {
        /// Every `ispe` size and every grid's output size, in file order.
        var declared: [Declared] = []
        /// True when the file has coded images (`hvcC`/`av1C`) and every one is monochrome
        /// (HEVC `chroma_format_idc` 0, AV1 `mono_chrome`): a gray image, with a gray alpha plane
        /// if it has one.
        var isMonochrome = false
    }

    static func scan(_ data: Data) -> Findings {
        let bytes = [UInt8](data)
        guard let meta = boxes(bytes, in: 0..<bytes.count).first(where: { $0.type == "meta" }), meta.body.count > 4 else { return Findings() }
        let children = boxes(bytes, in: (meta.body.lowerBound + 4)..<meta.body.upperBound)  // full box: skip version/flags
        var found = Findings()
        func check(_ what: String, _ width: Int, _ height: Int) {
            found.declared.append(Declared(what: what, size: PixelSize(width: width, height: height)))
        }
        if let iprp = children.first(where: { $0.type == "iprp" }),
            let ipco = boxes(bytes, in: iprp.body).first(where: { $0.type == "ipco" })
        {
            var monochrome: [Bool] = []
            for property in boxes(bytes, in: ipco.body) {
                let body = property.body
                switch property.type {
                case "ispe" where body.count >= 12:
                    check("image or tile (ispe)", Int(be(bytes, body.lowerBound + 4, 4)), Int(be(bytes, body.lowerBound + 8, 4)))
                case "hvcC" where body.count > 16: monochrome.append(bytes[body.lowerBound + 16] & 3 == 0)
                case "av1C" where body.count > 2: monochrome.append(bytes[body.lowerBound + 2] >> 4 & 1 == 1)
                default: break
                }
            }
            found.isMonochrome = !monochrome.isEmpty && !monochrome.contains(false)
        }
        let gridItems = Set(itemTypes(bytes, children).filter { $0.value == "grid" }.keys)
        guard !gridItems.isEmpty else { return found }
        let idat = children.first { $0.type == "idat" }?.body
        for (item, extents) in itemLocations(bytes, children, idat: idat) where gridItems.contains(item) {
            guard let first = extents.first, first.count >= 8, first.upperBound <= bytes.count else { continue }
            let flags = bytes[first.lowerBound + 1]
            let wide = flags & 1 == 1
            let at = first.lowerBound + 4
            guard first.count >= (wide ? 12 : 8) else { continue }
            let width = Int(be(bytes, at, wide ? 4 : 2))
            let height = Int(be(bytes, at + (wide ? 4 : 2), wide ? 4 : 2))
            check("grid", width, height)
        }
        return found
    }

    /// The boxes laid end to end in `range`; stops at the first malformed header.
    static func boxes(_ b: [UInt8], in range: Range<Int>) -> [Box] {
        var result: [Box] = []
        var at = range.lowerBound
        while at + 8 <= range.upperBound {
            var size = Int(be(b, at, 4))
            var header = 8
            if size == 1 {
                guard at + 16 <= range.upperBound else { break }
                let large = be(b, at + 8, 8)
                guard large <= UInt64(Int.max) else { break }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = range.upperBound - at
            }
            guard size >= header, size <= range.upperBound - at else { break }
            result.append(Box(type: String(decoding: b[(at + 4)..<(at + 8)], as: UTF8.self), body: (at + header)..<(at + size)))
            at += size
        }
        return result
    }

    /// Item ID → item type from `iinf` (`infe` versions 2 and 3).
    static func itemTypes(_ b: [UInt8], _ meta: [Box]) -> [UInt32: String] {
        guard let iinf = meta.first(where: { $0.type == "iinf" }), iinf.body.count >= 6 else { return [:] }
        let version = b[iinf.body.lowerBound]
        let entriesStart = iinf.body.lowerBound + 4 + (version == 0 ? 2 : 4)
        guard entriesStart <= iinf.body.upperBound else { return [:] }
        var types: [UInt32: String] = [:]
        for infe in boxes(b, in: entriesStart..<iinf.body.upperBound) where infe.type == "infe" && infe.body.count >= 12 {
            let v = b[infe.body.lowerBound]
            guard v >= 2 else { continue }
            let idSize = v == 2 ? 2 : 4
            let at = infe.body.lowerBound + 4
            guard at + idSize + 2 + 4 <= infe.body.upperBound else { continue }
            let id = UInt32(be(b, at, idSize))
            let typeAt = at + idSize + 2
            types[id] = String(decoding: b[typeAt..<(typeAt + 4)], as: UTF8.self)
        }
        return types
    }

    /// Item ID → the byte ranges of its data, from `iloc` (construction methods 0 and 1).
    static func itemLocations(_ b: [UInt8], _ meta: [Box], idat: Range<Int>?) -> [UInt32: [Range<Int>]] {
        guard let iloc = meta.first(where: { $0.type == "iloc" }), iloc.body.count >= 8 else { return [:] }
        var reader = Reader(bytes: b, at: iloc.body.lowerBound, end: iloc.body.upperBound)
        guard let version = reader.read(1), reader.read(3) != nil, let sizes = reader.read(2) else { return [:] }
        let offsetSize = Int(sizes >> 12 & 15), lengthSize = Int(sizes >> 8 & 15)
        let baseOffsetSize = Int(sizes >> 4 & 15), indexSize = version >= 1 ? Int(sizes & 15) : 0
        guard let count = reader.read(version < 2 ? 2 : 4) else { return [:] }
        var locations: [UInt32: [Range<Int>]] = [:]
        for _ in 0..<min(Int(count), 65536) {
            guard let id = reader.read(version < 2 ? 2 : 4) else { break }
            var method: UInt64 = 0
            if version >= 1 { guard let m = reader.read(2) else { break }; method = m & 15 }
            guard reader.read(2) != nil, let base = reader.read(baseOffsetSize), let extents = reader.read(2) else { break }
            var ranges: [Range<Int>] = []
            for _ in 0..<extents {
                if indexSize > 0 { guard reader.read(indexSize) != nil else { return locations } }
                guard let offset = reader.read(offsetSize), let length = reader.read(lengthSize) else { return locations }
                let origin: Int
                switch method {
                case 0: origin = 0
                case 1: guard let idat else { continue }; origin = idat.lowerBound
                default: continue
                }
                let (start, o1) = base.addingReportingOverflow(offset)
                guard !o1, start < UInt64(b.count), length <= UInt64(b.count) else { continue }
                let lower = origin + Int(start)
                let upper = length == 0 ? b.count : lower + Int(length)
                if lower <= upper, upper <= b.count { ranges.append(lower..<upper) }
            }
            locations[UInt32(truncatingIfNeeded: id)] = ranges
        }
        return locations
    }

    /// A big-endian unsigned integer of `size` bytes (0…8) at `at`; the caller checks bounds.
    static func be(_ b: [UInt8], _ at: Int, _ size: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<size { value = value << 8 | UInt64(b[at + i]) }
        return value
    }

    /// Reads big-endian fields of 0–8 bytes, nil past the end.
    struct Reader {
        let bytes: [UInt8]
        var at: Int
        let end: Int
        mutating func read(_ size: Int) -> UInt64? {
            guard size >= 0, size <= 8, at + size <= end else { return nil }
            defer { at += size }
            return HEIFBoxScan.be(bytes, at, size)
        }
    }
}
