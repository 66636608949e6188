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
        let opaque: UInt32 = 0xFF00_0000
        if let map = colorMap?.pointee, let colors = map.Colors {
            let count = min(256, Int(map.ColorCount))
            for index in 0..<256 {
                guard index < count else {
                    palette[index] = opaque.littleEndian
                    continue
                }
                let color = colors[index]
                palette[index] = (UInt32(color.Red) | UInt32(color.Green) << 8 | UInt32(color.Blue) << 16 | opaque).littleEndian
            }
        } else {
            for index in 0..<256 { palette[index] = (UInt32(index) * 0x01_0101 | opaque).littleEndian }
        }
    }

    /// Draws row `y` of the current frame (frame coordinates) from its colour indices.
    mutating func draw(row y: Int, indices: UnsafePointer<UInt8>) {
        let canvasY = frame.top + y
        guard canvasY < size.height, frame.left < size.width else { return }
        let count = min(frame.width, size.width - frame.left)
        let start = canvasY * size.width + frame.left
        pixels.withUnsafeMutableBufferPointer { canvas in
            palette.withUnsafeBufferPointer { palette in
                if let transparent = frame.transparentIndex {
                    let skip = UInt8(truncatingIfNeeded: transparent)
                    for x in 0..<count where indices[x] != skip { canvas[start + x] = palette[Int(indices[x])] }
                } else {
                    for x in 0..<count { canvas[start + x] = palette[Int(indices[x])] }
                }
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
            guard frame.left < size.width, frame.top < size.height else { return }
            let right = min(size.width, frame.left + frame.width)
            for y in frame.top..<min(size.height, frame.top + frame.height) {
                let row = y * size.width
                for x in frame.left..<right { pixels[row + x] = 0 }
            }
        case 3:
            if let beforeFrame { pixels = beforeFrame }
        default:
            break
        }
        beforeFrame = nil
    }
}
