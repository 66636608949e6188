extension EXIFBlock {
    /// A new block holding only IFD0 with `entries` and, unless `orientation` is
    /// ``ExifOrientation/up``, an Orientation entry; nil when there is nothing to hold.
    public static func minimal(orientation: ExifOrientation, entries: [Entry], bigEndian: Bool = true) -> [UInt8]? {
        var ifd0 = entries.filter { $0.tag != Tag.orientation }
        if orientation != .up { ifd0.append(orientationEntry(orientation, bigEndian: bigEndian)) }
        guard !ifd0.isEmpty else { return nil }
        return serialize([(.ifd0, ifd0)], bigEndian: bigEndian)
    }

    /// This block with IFD0's Orientation saying `orientation`. The bytes are kept as they are
    /// (maker notes, whose offsets only their vendor knows, stay valid) and the value patched in
    /// place; a block without the tag gets it by being rewritten, without IFD1 (the thumbnail,
    /// which would show unrotated). Nil when rewriting leaves nothing.
    public func withOrientation(_ orientation: ExifOrientation) -> [UInt8]? {
        if let entry = entry(Tag.orientation, in: .ifd0), entry.count == 1, entry.type == 3 || entry.type == 4 {
            var patched = bytes
            let value = entry.type == 3 ? Self.u16(orientation.rawValue, bigEndian) : Self.u32(orientation.rawValue, bigEndian)
            patched.replaceSubrange(entry.valueOffset..<(entry.valueOffset + value.count), with: value)
            return patched
        }
        if orientation == .up && entry(Tag.orientation, in: .ifd0) == nil { return bytes }
        var ifd0 = (directories[.ifd0] ?? []).filter { $0.tag != Tag.orientation }
        if orientation != .up { ifd0.append(Self.orientationEntry(orientation, bigEndian: bigEndian)) }
        let rest: [Directory] = [.exif, .interoperability, .gps]
        return Self.serialize([(.ifd0, ifd0)] + rest.compactMap { dir in directories[dir].map { (dir, $0) } }, bigEndian: bigEndian)
    }

    static func orientationEntry(_ orientation: ExifOrientation, bigEndian: Bool) -> Entry {
        Entry(tag: Tag.orientation, type: 3, count: 1, value: u16(orientation.rawValue, bigEndian))
    }

    /// Lays IFDs out one after the other from offset 8 (IFD0 first), each followed by its
    /// out-of-line values; the pointer entries to the EXIF, GPS and interoperability IFDs are
    /// set to where those land (and dropped when they are absent). Values keep their bytes, so
    /// `bigEndian` must be the byte order they were read in.
    static func serialize(_ ifds: [(Directory, [Entry])], bigEndian: Bool) -> [UInt8] {
        let present = Set(ifds.map(\.0))
        let pointerTags = [Tag.exifIFD, Tag.gpsIFD, Tag.interoperabilityIFD]
        let pointers: [Directory: [(UInt16, Directory)]] = [
            .ifd0: [(Tag.exifIFD, .exif), (Tag.gpsIFD, .gps)], .exif: [(Tag.interoperabilityIFD, .interoperability)],
        ]
        func entries(of directory: Directory, _ list: [Entry], offsets: [Directory: Int]) -> [Entry] {
            var kept = list.filter { !pointerTags.contains($0.tag) }
            for (tag, target) in pointers[directory] ?? [] where present.contains(target) {
                kept.append(Entry(tag: tag, type: 4, count: 1, value: u32(offsets[target] ?? 0, bigEndian)))
            }
            return kept.sorted { $0.tag < $1.tag }
        }
        func size(_ list: [Entry]) -> Int {
            2 + list.count * 12 + 4 + list.reduce(0) { $0 + ($1.value.count > 4 ? ($1.value.count + 1) & ~1 : 0) }
        }
        var offsets: [Directory: Int] = [:]
        var cursor = 8
        for (directory, list) in ifds {
            offsets[directory] = cursor
            cursor += size(entries(of: directory, list, offsets: [:]))
        }
        var out: [UInt8] = bigEndian ? [0x4D, 0x4D, 0, 42] : [0x49, 0x49, 42, 0]
        out += u32(8, bigEndian)
        for (directory, list) in ifds {
            let laid = entries(of: directory, list, offsets: offsets)
            var valueCursor = out.count + 2 + laid.count * 12 + 4
            var values: [UInt8] = []
            out += u16(laid.count, bigEndian)
            for entry in laid {
                out += u16(Int(entry.tag), bigEndian) + u16(Int(entry.type), bigEndian) + u32(entry.count, bigEndian)
                if entry.value.count > 4 {
                    out += u32(valueCursor, bigEndian)
                    values += entry.value
                    if entry.value.count % 2 == 1 { values.append(0) }
                    valueCursor += (entry.value.count + 1) & ~1
                } else {
                    out += entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
                }
            }
            out += u32(0, bigEndian)  // IFD1 is never written
            out += values
        }
        return out
    }

    static func u16(_ value: Int, _ bigEndian: Bool) -> [UInt8] {
        let (high, low) = (UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value))
        return bigEndian ? [high, low] : [low, high]
    }

    static func u32(_ value: Int, _ bigEndian: Bool) -> [UInt8] {
        let (high, low) = (u16(value >> 16, bigEndian), u16(value & 0xFFFF, bigEndian))
        return bigEndian ? high + low : low + high
    }
}
