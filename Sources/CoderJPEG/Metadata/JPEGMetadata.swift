import ImageKernel

/// What CoderJPEG reads from a file's APP markers: the EXIF block and its orientation and the
/// XMP packet (APP1), the ICC profile (APP2) and the IPTC records (APP13). Parsing is
/// bounds-checked Swift over copied marker bytes; a malformed marker is ignored, never an error.
struct JPEGMetadata: Sendable, Equatable {
    var orientation: ExifOrientation = .up
    var iccProfile: [UInt8]?
    /// EXIF, XMP and IPTC as the image carries them.
    var blocks = ImageMetadata()

    static let app1 = 0xE1
    static let app2 = 0xE2
    static let app13 = 0xED
    static let exifSignature: [UInt8] = Array("Exif".utf8) + [0, 0]
    static let xmpSignature: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]

    init(orientation: ExifOrientation = .up, iccProfile: [UInt8]? = nil) {
        self.orientation = orientation
        self.iccProfile = iccProfile
    }

    /// The profile for RGB or gray pixels: nil for a CMYK profile, which cannot describe the
    /// RGB that the naive CMYK formula makes (and which a viewer or re-encode would misuse).
    var rgbICCProfile: [UInt8]? {
        guard let iccProfile, ICCProfileHeader(iccProfile)?.isCMYK != true else { return nil }
        return iccProfile
    }

    /// The CMYK profile of a CMYK file, for conversion through a ``ColorConverter``.
    var cmykICCProfile: [UInt8]? {
        guard let iccProfile, ICCProfileHeader(iccProfile)?.isCMYK == true else { return nil }
        return iccProfile
    }

    /// Reads the first EXIF APP1 marker (block and orientation), the first XMP APP1 marker, the
    /// IPTC records of the APP13 markers, and reassembles the ICC chunks.
    init(markers: [(marker: Int, bytes: [UInt8])]) {
        for (marker, bytes) in markers where marker == Self.app1 {
            if blocks.exif == nil, let exif = EXIFReader(app1: bytes) {
                orientation = exif.orientation() ?? .up
                blocks.exif = Array(bytes.dropFirst(Self.exifSignature.count))
            } else if blocks.xmp == nil, bytes.starts(with: Self.xmpSignature) {
                blocks.xmp = Array(bytes.dropFirst(Self.xmpSignature.count))
            }
        }
        let iptc = markers.filter { $0.marker == Self.app13 }.flatMap { PhotoshopResources.iptc(inAPP13: $0.bytes) ?? [] }
        blocks.iptc = iptc.isEmpty ? nil : iptc
        iccProfile = Self.assembleICC(markers.filter { $0.marker == Self.app2 }.map(\.bytes))
    }

    /// The APP markers that carry `metadata`, in the layout `cjpeg_encode_params.markers`
    /// takes (marker code, big-endian length, payload). A block too large for one marker (64 KiB)
    /// is left out: extended XMP and EXIF split across markers are not written.
    static func encodedMarkers(_ metadata: ImageMetadata) -> [UInt8] {
        var payloads: [(Int, [UInt8])] = []
        if let exif = metadata.exif, !exif.isEmpty { payloads.append((app1, exifSignature + exif)) }
        if let xmp = metadata.xmp, !xmp.isEmpty { payloads.append((app1, xmpSignature + xmp)) }
        if let iptc = metadata.iptc, !iptc.isEmpty { payloads.append((app13, PhotoshopResources.app13(iptc: iptc))) }
        var out: [UInt8] = []
        for (marker, payload) in payloads where payload.count <= 65533 {
            out += [UInt8(marker), UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
        }
        return out
    }

    /// Joins `ICC_PROFILE` APP2 chunks in their sequence order. An exact repeat of a chunk is
    /// ignored (some writers emit the profile twice). Returns nil when there are none or they are
    /// inconsistent (missing, conflicting or out-of-range sequence numbers).
    static func assembleICC(_ payloads: [[UInt8]]) -> [UInt8]? {
        let signature = Array("ICC_PROFILE".utf8) + [0]
        var chunks: [Int: ArraySlice<UInt8>] = [:]
        var declaredCount: Int?
        for payload in payloads where payload.count >= signature.count + 2 && payload.starts(with: signature) {
            let sequence = Int(payload[signature.count])
            let count = Int(payload[signature.count + 1])
            let body = payload[(signature.count + 2)...]
            guard count > 0, (1...count).contains(sequence), declaredCount == nil || declaredCount == count else { return nil }
            if let seen = chunks[sequence] {
                guard seen == body else { return nil }  // a repeated chunk must repeat exactly
                continue
            }
            declaredCount = count
            chunks[sequence] = body
        }
        guard let count = declaredCount, chunks.count == count else { return nil }
        let profile = (1...count).flatMap { chunks[$0]! }
        return profile.isEmpty ? nil : profile
    }
}

/// A minimal, bounds-checked reader of the TIFF structure inside an EXIF APP1 marker.
struct EXIFReader {
    private let tiff: ArraySlice<UInt8>
    private let bigEndian: Bool

    /// Nil unless the payload starts with `Exif\0\0` and a valid TIFF header.
    init?(app1 payload: [UInt8]) {
        let magic: [UInt8] = Array("Exif".utf8) + [0, 0]
        guard payload.count >= magic.count + 8, payload.starts(with: magic) else { return nil }
        let tiff = payload[magic.count...]
        let start = tiff.startIndex
        switch (tiff[start], tiff[start + 1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        self.tiff = tiff
        guard read16(at: 2) == 42 else { return nil }
    }

    /// IFD0's Orientation tag (0x0112), if present and 1...8.
    func orientation() -> ExifOrientation? {
        guard let ifd = read32(at: 4), let entries = read16(at: ifd) else { return nil }
        for index in 0..<entries {
            let entry = ifd + 2 + index * 12
            guard let tag = read16(at: entry), let type = read16(at: entry + 2) else { return nil }
            guard tag == 0x0112 else { continue }
            let value: Int?
            switch type {
            case 3: value = read16(at: entry + 8)  // SHORT
            case 4: value = read32(at: entry + 8)  // LONG, written by a few tools
            default: value = nil
            }
            return value.flatMap(ExifOrientation.init(rawValue:))
        }
        return nil
    }

    private func read16(at offset: Int) -> Int? {
        guard offset >= 0, offset + 2 <= tiff.count else { return nil }
        let a = Int(tiff[tiff.startIndex + offset])
        let b = Int(tiff[tiff.startIndex + offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    private func read32(at offset: Int) -> Int? {
        guard let first = read16(at: offset), let second = read16(at: offset + 2) else { return nil }
        return bigEndian ? first << 16 | second : second << 16 | first
    }
}
