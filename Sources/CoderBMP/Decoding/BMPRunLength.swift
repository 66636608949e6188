/// RLE4 and RLE8 into a buffer of 8-bit indices, one byte per pixel, rows in file order.
///
/// Pixels no run reaches keep index 0 (Pillow's choice; browsers show them transparent). The
/// cursor moves through the buffer as Pillow's decoder does: an encoded run stops at the end of
/// its row, an absolute run continues onto the next one (and, as in Pillow, encoded runs after it
/// are dropped until the next end-of-line), end-of-line moves to the start of the next row, a
/// delta moves right and up (in file order). Data that ends early, or a cursor that
/// leaves the buffer, ends the bitmap: what was decoded is kept.
enum BMPRunLength {
    static func decode(_ source: UnsafeRawBufferPointer, width: Int, height: Int, nibbles: Bool, into indices: UnsafeMutableBufferPointer<UInt8>) {
        let total = width * height
        var position = 0
        var column = 0  // Pillow's column: not wrapped by absolute runs
        var i = 0
        let count = source.count
        while i + 1 < count && position < total {
            let first = Int(source[i]), second = source[i + 1]
            i += 2
            if first > 0 {
                // Encoded run: `first` pixels, clipped to the row.
                let run = min(first, max(0, width - column), total - position)
                if nibbles {
                    let high = second >> 4, low = second & 0x0F
                    for k in 0..<run { indices[position + k] = k & 1 == 0 ? high : low }
                } else {
                    for k in 0..<run { indices[position + k] = second }
                }
                position += run
                column += run
                continue
            }
            switch second {
            case 0:  // end of line
                let remainder = position % width
                if remainder != 0 { position += width - remainder }
                column = 0
            case 1:  // end of bitmap
                return
            case 2:  // delta
                guard i + 1 < count else { return }
                position += Int(source[i]) + Int(source[i + 1]) * width
                column = position % width
                i += 2
            default:  // absolute run of `second` pixels, padded to 16 bits
                let run = Int(second)
                let byteCount = nibbles ? (run + 1) / 2 : run
                let available = min(byteCount, count - i)
                let pixels = min(nibbles ? min(run, available * 2) : available, total - position)
                for k in 0..<pixels {
                    indices[position + k] = nibbles ? (k & 1 == 0 ? source[i + k / 2] >> 4 : source[i + k / 2] & 0x0F) : source[i + k]
                }
                position += pixels
                column += run
                if available < byteCount { return }
                i += byteCount + (byteCount & 1)
            }
        }
    }
}
