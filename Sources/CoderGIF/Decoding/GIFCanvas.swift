import CGIF
import ImageKernel

/// Composites GIF frames onto the logical screen the way browsers do.
///
/// - The canvas starts transparent black.
/// - Each frame's pixels are looked up in its local colour table, else the global one, else a
///   grayscale ramp (a file with no table at all); indices past the table's end are opaque black.
///   The transparent index leaves the canvas as it is.
/// - Parts of a frame outside the logical screen are clipped (the screen never grows).
/// - After a frame is shown, disposal 2 clears its rectangle to transparent black and disposal 3
///   restores the canvas as it was before the frame; 0, 1 and the reserved 4–7 keep it.
struct GIFCanvas {
    let size: PixelSize
    /// RGBA8 pixels as one `UInt32` each (bytes in memory order R, G, B, A).
    private(set) var pixels: [UInt32]
    private var beforeFrame: [UInt32]?
    private var palette = [UInt32](repeating: 0, count: 256)
    private var frame = GIFStructure.Frame(left: 0, top: 0, width: 0, height: 0, interlaced: false)

    init(size: PixelSize) {
        self.size = size
        pixels = [UInt32](repeating: 0, count: size.width * size.height)
    }

    /// Prepares to draw `frame` with `colorMap` (nil: no table in the file).
    mutating func begin(_ frame: GIFStructure.Frame, colorMap: UnsafeMutablePointer<ColorMapObject>?) {
        self.frame = frame
        beforeFrame = frame.disposal == 3 ? pixels : nil
        palette.withUnsafeMutableBufferPointer { cgif_palette(colorMap, $0.baseAddress) }
    }

    /// Reads the current frame's rows from giflib (descriptor already read) into `row` (at least
    /// the frame's width) and draws them; giflib's status.
    mutating func draw(from gif: UnsafeMutablePointer<GifFileType>, row: UnsafeMutablePointer<UInt8>) -> Int32 {
        var shape = cFrame
        let (width, height) = (Int32(size.width), Int32(size.height))
        return palette.withUnsafeBufferPointer { palette in
            pixels.withUnsafeMutableBufferPointer { canvas in
                cgif_draw_frame(gif, &shape, palette.baseAddress, row, canvas.baseAddress, width, height)
            }
        }
    }

    /// The canvas as straight RGBA8 bytes.
    func snapshot() -> [UInt8] {
        let count = pixels.count * 4
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            pixels.withUnsafeBytes { source in
                buffer.baseAddress!.update(from: source.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count)
            }
            initialized = count
        }
    }

    /// Applies the current frame's disposal method.
    mutating func dispose() {
        switch frame.disposal {
        case 2:
            var shape = cFrame
            let (width, height) = (Int32(size.width), Int32(size.height))
            pixels.withUnsafeMutableBufferPointer { cgif_clear_frame(&shape, $0.baseAddress, width, height) }
        case 3:
            if let beforeFrame { pixels = beforeFrame }
        default:
            break
        }
        beforeFrame = nil
    }

    private var cFrame: cgif_frame {
        cgif_frame(
            left: Int32(frame.left), top: Int32(frame.top), width: Int32(frame.width), height: Int32(frame.height),
            interlaced: frame.interlaced ? 1 : 0, transparent: Int32(frame.transparentIndex ?? -1))
    }
}
