/// An EXIF block parsed as the TIFF structure it is: IFD0, the EXIF, GPS and interoperability
/// sub-IFDs, and IFD1 (the thumbnail's), each a list of tagged entries.
///
/// Every read is bounds-checked against the block. A count or offset that points outside it, an
/// IFD reached twice (a loop), an entry table running past the end or values that overlap beyond
/// the block's size (one byte referenced by many entries) throw `corruptData` (in IFD1 they drop
/// IFD1 only); nothing is
/// allocated beyond a copy of the block's own values, so a hostile block costs no more than its
/// size. Entries of unknown types are skipped, as TIFF readers do.
public struct EXIFBlock: Sendable, Hashable {
    /// The IFDs an EXIF block holds.
    public enum Directory: String, Sendable, Hashable, CaseIterable {
        case ifd0, exif, gps, interoperability, ifd1
    }

    /// Tags the metadata policy handles.
    public enum Tag {
        public static let orientation: UInt16 = 0x0112
        public static let artist: UInt16 = 0x013B
        public static let copyright: UInt16 = 0x8298
        /// IFD0's pointer to the EXIF IFD.
        public static let exifIFD: UInt16 = 0x8769
        /// IFD0's pointer to the GPS IFD.
        public static let gpsIFD: UInt16 = 0x8825
        /// The EXIF IFD's pointer to the interoperability IFD.
        public static let interoperabilityIFD: UInt16 = 0xA005
    }

    /// One IFD entry.
    public struct Entry: Sendable, Hashable {
        public var tag: UInt16
        /// The TIFF field type (2 ASCII, 3 SHORT, 4 LONG, 7 UNDEFINED, …).
        public var type: UInt16
        /// The number of values of `type`.
        public var count: Int
        /// The values' bytes, in the block's byte order.
        public var value: [UInt8]
        /// Where the value sits in the block (the entry's own value field when it fits in 4 bytes).
        public var valueOffset: Int

        public init(tag: UInt16, type: UInt16, count: Int, value: [UInt8], valueOffset: Int = 0) {
            self.tag = tag
            self.type = type
            self.count = count
            self.value = value
            self.valueOffset = valueOffset
        }
    }

    /// The block as given.
    public let bytes: [UInt8]
    /// `MM` (Motorola) rather than `II` (Intel) byte order.
    public let bigEndian: Bool
    /// The entries of each IFD present, in file order.
    public private(set) var directories: [Directory: [Entry]] = [:]

    /// Parses a block (from its byte-order mark on; a leading `Exif\0\0` is not accepted).
    public init(bytes: [UInt8]) throws(ImageKernelError) {
        self.bytes = bytes
        guard bytes.count >= 8 else { throw Self.corrupt("shorter than a TIFF header") }
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: throw Self.corrupt("no TIFF byte-order mark")
        }
        var reader = Reader(bytes: bytes, bigEndian: bigEndian)
        guard try reader.u16(2) == 42 else { throw Self.corrupt("no TIFF magic number") }
        let (ifd0, next) = try reader.directory(at: try reader.u32(4))
        directories[.ifd0] = ifd0
        if let exifOffset = try Self.pointer(Tag.exifIFD, in: ifd0, reader) {
            let exif = try reader.directory(at: exifOffset).entries
            directories[.exif] = exif
            if let interop = try Self.pointer(Tag.interoperabilityIFD, in: exif, reader) {
                directories[.interoperability] = try reader.directory(at: interop).entries
            }
        }
        if let gps = try Self.pointer(Tag.gpsIFD, in: ifd0, reader) {
            directories[.gps] = try reader.directory(at: gps).entries
        }
        // IFD1 only describes the embedded thumbnail, and writers often leave a stale pointer to
        // it: one that does not parse is ignored rather than costing the whole block.
        if next != 0, let ifd1 = try? reader.directory(at: next).entries { directories[.ifd1] = ifd1 }
    }

    /// The entry for `tag` in `directory`, if present.
    public func entry(_ tag: UInt16, in directory: Directory) -> Entry? {
        directories[directory]?.first { $0.tag == tag }
    }

    /// An ASCII entry's text, up to its first NUL.
    public func string(_ tag: UInt16, in directory: Directory) -> String? {
        guard let entry = entry(tag, in: directory), entry.type == 2 else { return nil }
        return String(decoding: entry.value.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// A SHORT or LONG entry's first value.
    public func unsigned(_ tag: UInt16, in directory: Directory) -> Int? {
        guard let entry = entry(tag, in: directory) else { return nil }
        let reader = Reader(bytes: entry.value, bigEndian: bigEndian)
        switch entry.type {
        case 3: return try? reader.u16(0)
        case 4: return try? reader.u32(0)
        default: return nil
        }
    }

    static func corrupt(_ message: String) -> ImageKernelError {
        ImageKernelError(stage: .decode, code: .corruptData, message: "EXIF: \(message)")
    }

    /// The byte size of one value of a TIFF field type; nil for unknown types.
    static func size(of type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: nil
        }
    }

    private static func pointer(_ tag: UInt16, in entries: [Entry], _ reader: Reader) throws(ImageKernelError) -> Int? {
        guard let entry = entries.first(where: { $0.tag == tag }) else { return nil }
        guard entry.type == 4 || entry.type == 13, entry.count == 1 else { throw corrupt("IFD pointer \(tag) is not one LONG") }
        return try Reader(bytes: entry.value, bigEndian: reader.bigEndian).u32(0)
    }
}

/// Bounds-checked reads over the block, and the walk's state: the IFDs seen (a second visit is
/// a loop) and the out-of-line value bytes copied so far (capped at the block's size).
private struct Reader {
    let bytes: [UInt8]
    let bigEndian: Bool
    var visited: Set<Int> = []
    var copiedValueBytes = 0

    init(bytes: [UInt8], bigEndian: Bool) {
        self.bytes = bytes
        self.bigEndian = bigEndian
    }

    func u16(_ offset: Int) throws(ImageKernelError) -> Int {
        guard offset >= 0, offset <= bytes.count - 2 else { throw EXIFBlock.corrupt("a read at \(offset) runs past the end") }
        let (a, b) = (Int(bytes[offset]), Int(bytes[offset + 1]))
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    func u32(_ offset: Int) throws(ImageKernelError) -> Int {
        let (first, second) = (try u16(offset), try u16(offset + 2))
        return bigEndian ? first << 16 | second : second << 16 | first
    }

    /// The entries of the IFD at `offset` and the offset of the next IFD (0 for none).
    mutating func directory(at offset: Int) throws(ImageKernelError) -> (entries: [EXIFBlock.Entry], next: Int) {
        guard offset >= 8, offset < bytes.count else { throw EXIFBlock.corrupt("an IFD offset \(offset) is outside the block") }
        guard visited.insert(offset).inserted else { throw EXIFBlock.corrupt("the IFD at \(offset) is reached twice (a loop)") }
        let count = try u16(offset)
        let tableEnd = offset + 2 + count * 12
        guard tableEnd <= bytes.count else { throw EXIFBlock.corrupt("an IFD of \(count) entries runs past the end") }
        var entries: [EXIFBlock.Entry] = []
        entries.reserveCapacity(count)
        for index in 0..<count {
            let at = offset + 2 + index * 12
            let tag = UInt16(try u16(at))
            let type = UInt16(try u16(at + 2))
            let valueCount = try u32(at + 4)
            guard let size = EXIFBlock.size(of: type) else { continue }
            let length = valueCount * size  // at most 2^32 × 8: no overflow in Int
            let valueOffset: Int
            if length <= 4 {
                valueOffset = at + 8
            } else {
                valueOffset = try u32(at + 8)
                guard length <= bytes.count, valueOffset <= bytes.count - length else {
                    throw EXIFBlock.corrupt("tag \(tag) claims \(length) bytes at \(valueOffset), outside the block")
                }
                copiedValueBytes += length
                guard copiedValueBytes <= bytes.count else { throw EXIFBlock.corrupt("entries share value bytes beyond the block's size") }
            }
            entries.append(EXIFBlock.Entry(
                tag: tag, type: type, count: valueCount, value: Array(bytes[valueOffset..<(valueOffset + length)]), valueOffset: valueOffset))
        }
        let next = tableEnd + 4 <= bytes.count ? try u32(tableEnd) : 0
        return (entries, next)
    }
}
