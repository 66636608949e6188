import ImageKernel

/// What a BMP's info header (and the file header before it, if any) says, read and checked
/// before any pixel is touched.
struct BMPHeader {
    enum Compression: Equatable {
        case none, rle8, rle4, bitfields, embeddedJPEG, embeddedPNG
    }

    var headerSize: Int
    var width: Int
    /// Rows as stored; for an ICO entry, the XOR rows (half the header's height).
    var height: Int
    var isTopDown: Bool
    var bitCount: Int
    var compression: Compression
    var masks: (red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32)
    /// 256 palette entries as RGB triples; entries the file does not give are black.
    var palette: [UInt8]
    /// Where the pixel data starts, from the start of the buffer.
    var pixelOffset: Int
    var iccProfile: [UInt8]?
    /// Where the embedded profile starts, from the start of the buffer.
    var profileStart: Int?

    static let profileEmbedded: UInt32 = 0x4D42_4544  // 'MBED'

    /// Reads the info header at `infoOffset`. `pixelOffset` is the file header's offset (nil for
    /// an ICO entry, whose pixels follow the palette); `halveHeight` is set for ICO entries.
    init(_ data: LittleEndianBytes, infoOffset: Int, pixelOffset fileOffset: Int?, halveHeight: Bool) throws(ImageKernelError) {
        guard let size = data.u32(infoOffset) else { throw BMPFailure.truncated("BMP info header is cut short") }
        headerSize = Int(size)
        let isCore = headerSize == 12
        let isOS2v2 = (16...64).contains(headerSize) && ![40, 52, 56].contains(headerSize)
        guard isCore || (16...64).contains(headerSize) || headerSize == 108 || headerSize == 124 else {
            throw BMPFailure.corrupt("BMP info header size \(headerSize) is not one of 12, 16-64, 108 or 124")
        }
        guard data.has(headerSize, at: infoOffset) else { throw BMPFailure.truncated("BMP info header is cut short") }
        let base = infoOffset
        let field = { (offset: Int) -> UInt32 in offset + 4 <= size ? (data.u32(base + offset) ?? 0) : 0 }
        let rawWidth: Int
        let rawHeight: Int
        if isCore {
            rawWidth = Int(data.u16(base + 4) ?? 0)
            rawHeight = Int(Int16(bitPattern: data.u16(base + 6) ?? 0))
            bitCount = Int(data.u16(base + 10) ?? 0)
        } else {
            rawWidth = Int(Int32(bitPattern: field(4)))
            rawHeight = Int(Int32(bitPattern: field(8)))
            bitCount = Int(data.u16(base + 14) ?? 0)
        }
        guard rawWidth > 0, rawHeight != 0 else { throw BMPFailure.corrupt("BMP size \(rawWidth)x\(rawHeight) is empty or negative") }
        width = rawWidth
        isTopDown = rawHeight < 0
        height = halveHeight ? abs(rawHeight) / 2 : abs(rawHeight)
        guard height > 0 else { throw BMPFailure.corrupt("ICO entry height \(rawHeight) holds no rows") }

        let rawCompression = isCore ? 0 : field(16)
        var maskBytesAfterHeader = 0
        switch (rawCompression, isOS2v2) {
        case (0, _): compression = .none
        case (1, _): compression = .rle8
        case (2, _): compression = .rle4
        case (3, false):
            compression = .bitfields
            if headerSize < 52 { maskBytesAfterHeader = 12 }
        case (6, false):
            compression = .bitfields
            if headerSize < 56 { maskBytesAfterHeader = 16 }
        case (4, false): compression = .embeddedJPEG
        case (5, false): compression = .embeddedPNG
        case (3, true): throw BMPFailure.unsupported("OS/2 Huffman 1D compressed BMP is not supported")
        case (4, true): throw BMPFailure.unsupported("OS/2 RLE24 compressed BMP is not supported")
        default: throw BMPFailure.corrupt("BMP compression \(rawCompression) is unknown")
        }
        switch (compression, bitCount) {
        case (.none, 1), (.none, 2), (.none, 4), (.none, 8), (.none, 16), (.none, 24), (.none, 32), (.none, 64),
            (.rle8, 8), (.rle4, 4), (.bitfields, 16), (.bitfields, 32), (.embeddedJPEG, _), (.embeddedPNG, _):
            break
        default:
            throw BMPFailure.corrupt("BMP of \(bitCount) bits per pixel with compression \(rawCompression) is not a valid combination")
        }
        // Masks: in the header from 52 bytes on, else after it for BI_BITFIELDS.
        let maskBase = base + (maskBytesAfterHeader > 0 ? headerSize : 0)
        let maskField = { (offset: Int) -> UInt32 in
            maskBytesAfterHeader > 0 ? (data.u32(maskBase + offset - 40) ?? 0) : field(offset)
        }
        switch (compression, bitCount) {
        case (.bitfields, _):
            guard maskBytesAfterHeader == 0 || data.has(maskBytesAfterHeader, at: maskBase) else {
                throw BMPFailure.truncated("BMP bitfield masks are cut short")
            }
            let alpha = maskBytesAfterHeader == 12 ? 0 : maskField(52)
            masks = (maskField(40), maskField(44), maskField(48), alpha)
        case (_, 16): masks = (0x7C00, 0x03E0, 0x001F, 0)
        default: masks = (0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0)
        }

        // The palette follows the header and any masks; core headers use 3-byte entries.
        let paletteStart = base + headerSize + maskBytesAfterHeader
        let entrySize = isCore ? 3 : 4
        let used = Int(isCore ? 0 : field(32))
        // An oversized palette (more entries than the depth can index) is read up to what can be indexed.
        let paletteCount = bitCount <= 8 ? (used == 0 || used > 1 << bitCount ? 1 << bitCount : used) : 0
        var palette = [UInt8](repeating: 0, count: 256 * 3)
        for index in 0..<paletteCount {
            let entry = paletteStart + index * entrySize
            guard let b = data.u8(entry), let g = data.u8(entry + 1), let r = data.u8(entry + 2) else { break }
            palette[index * 3] = r
            palette[index * 3 + 1] = g
            palette[index * 3 + 2] = b
        }
        self.palette = palette
        if let fileOffset {
            // A file header pointing at the palette means "after it" (Pillow reads it so).
            let storedEntries = used == 0 ? 1 << bitCount : min(used, 1 << 16)
            pixelOffset = fileOffset == paletteStart && (1...8).contains(bitCount) ? paletteStart + storedEntries * entrySize : fileOffset
        } else {
            let storedEntries = used == 0 ? (bitCount <= 8 ? 1 << bitCount : 0) : min(used, 1 << 16)
            pixelOffset = paletteStart + storedEntries * entrySize
        }

        if headerSize == 124, field(56) == Self.profileEmbedded {
            let offset = Int(field(112))
            let length = Int(field(116))
            if length > 0, let profile = data.slice(base + offset, length) {
                iccProfile = [UInt8](profile)
                profileStart = base + offset
            }
        }
    }

    /// Bytes per stored row of uncompressed pixels (rows are padded to 4 bytes).
    var stride: Int? {
        let (bits, overflow) = width.multipliedReportingOverflow(by: bitCount)
        guard !overflow, bits <= Int.max - 31 else { return nil }
        return (bits + 31) / 32 * 4
    }

    /// Whether the decoded image carries alpha (bitfields with an alpha mask, 64-bit).
    var hasAlpha: Bool {
        bitCount == 64 || (compression == .bitfields && masks.alpha != 0)
    }
}
