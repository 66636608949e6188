import ImageKernel

/// An ICO or CUR file's directory: one entry per image, with where its bytes are and the size
/// and depth its own header gives (the directory's bytes are often wrong about both).
struct ICODirectory {
    struct Entry {
        var index: Int
        var width: Int
        var height: Int
        var bitDepth: Int
        var isPNG: Bool
        /// The entry's bytes, from the start of the file.
        var range: Range<Int>

        var pixelCount: Int { width * height }
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    var entries: [Entry]

    init(_ data: LittleEndianBytes) throws(ImageKernelError) {
        guard let reserved = data.u16(0), let type = data.u16(2), let count = data.u16(4) else {
            throw BMPFailure.truncated("ICO header is cut short")
        }
        guard reserved == 0, type == 1 || type == 2 else { throw BMPFailure.corrupt("not an ICO or CUR file") }
        guard count > 0 else { throw BMPFailure.corrupt("ICO directory has no entries") }
        guard data.has(16 * Int(count), at: 6) else { throw BMPFailure.truncated("ICO directory of \(count) entries is cut short") }
        var entries: [Entry] = []
        for index in 0..<Int(count) {
            let at = 6 + 16 * index
            let directoryWidth = Int(data.u8(at) ?? 0), directoryHeight = Int(data.u8(at + 1) ?? 0)
            let directoryDepth = type == 1 ? Int(data.u16(at + 6) ?? 0) : 0
            let size = Int(data.u32(at + 8) ?? 0), offset = Int(data.u32(at + 12) ?? 0)
            // Readers use the entry's bytes from its offset on, whatever the directory says of its
            // size (often too small); the size only has to be positive.
            guard offset < data.count, size > 0 else { continue }
            let end = data.count
            var entry = Entry(
                index: index, width: directoryWidth == 0 ? 256 : directoryWidth, height: directoryHeight == 0 ? 256 : directoryHeight,
                bitDepth: directoryDepth, isPNG: false, range: offset..<end)
            Self.readOwnHeader(data, into: &entry)
            entries.append(entry)
        }
        guard !entries.isEmpty else { throw BMPFailure.corrupt("no ICO entry points inside the file") }
        self.entries = entries
    }

    /// Size and depth from the PNG's IHDR or the bitmap's info header, where they can be read.
    private static func readOwnHeader(_ data: LittleEndianBytes, into entry: inout Entry) {
        let start = entry.range.lowerBound
        if let signature = data.slice(start, 8), signature.elementsEqual(pngSignature) {
            entry.isPNG = true
            guard entry.range.count >= 26, let ihdr = data.slice(start + 16, 10) else { return }
            let be = { (o: Int) -> Int in Int(ihdr[o]) << 24 | Int(ihdr[o + 1]) << 16 | Int(ihdr[o + 2]) << 8 | Int(ihdr[o + 3]) }
            let samples = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(ihdr[9])] ?? 1
            entry.width = be(0)
            entry.height = be(4)
            entry.bitDepth = Int(ihdr[8]) * samples
            return
        }
        guard let size = data.u32(start), size >= 16, let width = data.i32(start + 4), let height = data.i32(start + 8),
            let bits = data.u16(start + 14), size != 12
        else { return }
        entry.width = Int(width)
        entry.height = abs(Int(height)) / 2
        entry.bitDepth = Int(bits)
    }

    /// The entry to decode: the smallest that covers the thumbnail box's fit when a box is
    /// given, else the largest; ties go to the deepest colour, then to the first in the file.
    func best(fitting box: PixelSize?) -> Entry {
        let largest = entries.max { a, b in
            (a.pixelCount, a.bitDepth, -a.index) < (b.pixelCount, b.bitDepth, -b.index)
        } ?? entries[0]
        guard let box, !box.isEmpty else { return largest }
        let target = PixelSize.thumbnail(of: PixelSize(width: largest.width, height: largest.height), fitting: box)
        let covering = entries.filter { $0.width >= target.width && $0.height >= target.height }
        return covering.min { a, b in
            (a.pixelCount, -a.bitDepth, a.index) < (b.pixelCount, -b.bitDepth, b.index)
        } ?? largest
    }
}
