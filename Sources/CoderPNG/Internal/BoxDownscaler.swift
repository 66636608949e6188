import CPNG
import ImageKernel

/// Averages an image down to a smaller size while its rows arrive top to bottom, holding only
/// the target buffer and a few rows' worth of sums, never the full-size image.
///
/// The filter is a box (area average) over an integer partition: output column `x` averages
/// source columns `x·W/w ..< (x+1)·W/w` (and the same for rows), so every source pixel lands in
/// exactly one box and boxes differ in size by at most one pixel. Where there is alpha, colour is
/// averaged premultiplied and unpremultiplied at the end (colour weighted by alpha): fully
/// transparent pixels never bleed their colour into the result, so edges get no dark fringes.
///
/// Each source row is first added, sample by sample, into one row of column sums (a flat,
/// vectorisable loop). Only when an output row is complete (or the column sums could overflow)
/// are those sums reduced across each box's columns and, at completion, divided into the
/// output row, which is final from then on.
struct BoxDownscaler {
    let format: PixelFormat
    let sourceWidth: Int
    let sourceHeight: Int
    let width: Int
    let height: Int
    /// Bytes per output row: no padding.
    var bytesPerRow: Int { width * format.bytesPerPixel }

    /// Source column boundaries: output column `x` covers `columnBounds[x] ..< columnBounds[x + 1]`.
    private let columnBounds: [Int]
    private let rowBounds: [Int]
    /// One sum per source sample, added row by row (premultiplied where there is alpha): 32-bit
    /// for 8-bit samples (twice the lanes per vector), 64-bit for 16-bit. The other one is empty.
    /// (`narrowSums` has one pixel of zeros past the last column, and one more sample, for ``FixedPointBoxes``.)
    private var narrowSums: [UInt32] = []
    private var wideSums: [UInt64] = []
    /// Box sums of one output row for `cpng_box_emit_u8` (8-bit only).
    private var scratch: [UInt32] = []
    /// One sum per output sample of the output row being built.
    private var boxSums: [UInt64]
    /// The integer kernel for 8-bit rows reduced straight from the column sums, when its
    /// divisors fit (nil: 16-bit samples or huge boxes, which keep ``BoxKernels``).
    private let fixedPoint: FixedPointBoxes?
    /// Rows added to the column sums since they were last reduced into `boxSums`.
    private var pendingRows = 0
    /// Whether `boxSums` holds part of the current output row (the column sums nearly overflowed).
    private var boxSumsInUse = false
    /// Rows the column sums can take before one of them could overflow.
    private let rowsPerReduction: Int
    private var sourceRow = 0
    private var outputRow = 0
    private var output: [UInt8]

    /// A downscaler from `sourceWidth`×`sourceHeight` to `width`×`height` (no side larger than the
    /// source's, none below 1) for 8- or 16-bit samples of `format` (16-bit in host byte order).
    init(format: PixelFormat, sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) {
        precondition(width >= 1 && height >= 1 && width <= sourceWidth && height <= sourceHeight)
        self.format = format
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.width = width
        self.height = height
        columnBounds = (0...width).map { $0 * sourceWidth / width }
        rowBounds = (0...height).map { $0 * sourceHeight / height }
        let samples = sourceWidth * format.channelCount
        let sampleMax: UInt64 = format.bitsPerComponent == 16 ? 0xFFFF : 0xFF
        let perRowMax = format.hasAlpha ? sampleMax * sampleMax : sampleMax
        if format.bitsPerComponent == 16 {
            wideSums = [UInt64](repeating: 0, count: samples)
            rowsPerReduction = Int(UInt64.max / perRowMax)
        } else {
            narrowSums = [UInt32](repeating: 0, count: samples + format.channelCount + 1)
            scratch = [UInt32](repeating: 0, count: width * format.channelCount + 4)
            rowsPerReduction = Int(UInt64(UInt32.max) / perRowMax)
        }
        boxSums = [UInt64](repeating: 0, count: width * format.channelCount)
        fixedPoint = FixedPointBoxes.make(format: format, bounds: columnBounds, rowBounds: rowBounds, outputPixels: width * height)
        // Uninitialised: every byte is written by the row that completes it, and `finish` hands
        // the buffer out only once every row is written.
        let outputCount = width * format.bytesPerPixel * height
        output = [UInt8](unsafeUninitializedCapacity: outputCount) { _, count in count = outputCount }
    }

    /// Whether every output row has been written.
    var isComplete: Bool { outputRow == height }

    /// Adds the next source row (`sourceWidth` pixels of `format`, no padding needed past them).
    mutating func add(row: UnsafeRawBufferPointer) {
        precondition(sourceRow < sourceHeight && row.count >= sourceWidth * format.bytesPerPixel)
        let channels = format.channelCount, hasAlpha = format.hasAlpha
        if format.bitsPerComponent == 16 {
            wideSums.withUnsafeMutableBufferPointer { sums in
                BoxKernels.accumulate(row.bindMemory(to: UInt16.self), into: sums, channels: channels, hasAlpha: hasAlpha)
            }
        } else {
            let samples = sourceWidth * channels
            precondition(hasAlpha == (channels == 2 || channels == 4))
            narrowSums.withUnsafeMutableBufferPointer { sums in
                // The first row since the sums were last reduced or emitted is stored, so they need no clearing.
                cpng_box_accumulate_u8(
                    row.bindMemory(to: UInt8.self).baseAddress!, sums.baseAddress!, samples / channels, UInt32(channels), pendingRows == 0 ? 1 : 0)
            }
        }
        sourceRow += 1
        pendingRows += 1
        if sourceRow == rowBounds[outputRow + 1] {
            if boxSumsInUse {
                reduce()
                emitRow()
            } else {
                emitRowFromColumnSums()
            }
        } else if pendingRows == rowsPerReduction {
            reduce()
        }
    }

    /// The finished image's pixels (`bytesPerRow` × `height` bytes). Call once every row is added.
    func finish() -> [UInt8] {
        precondition(isComplete, "\(sourceRow) of \(sourceHeight) rows added")
        return output
    }

    /// Moves the column sums into the box sums (each box's columns added up) and clears them.
    private mutating func reduce() {
        let channels = format.channelCount
        let wide = format.bitsPerComponent == 16
        columnBounds.withUnsafeBufferPointer { bounds in
            boxSums.withUnsafeMutableBufferPointer { boxes in
                if wide {
                    wideSums.withUnsafeMutableBufferPointer { BoxKernels.reduce($0, bounds: bounds, channels: channels, into: boxes) }
                } else {
                    narrowSums.withUnsafeMutableBufferPointer { BoxKernels.reduce($0, bounds: bounds, channels: channels, into: boxes) }
                }
            }
        }
        pendingRows = 0
        boxSumsInUse = true
    }

    /// Writes output row `outputRow` straight from the column sums (no earlier reduction for it).
    private mutating func emitRowFromColumnSums() {
        let rows = rowBounds[outputRow + 1] - rowBounds[outputRow]
        let start = outputRow * bytesPerRow, count = bytesPerRow
        let channels = format.channelCount
        let wide = format.bitsPerComponent == 16
        columnBounds.withUnsafeBufferPointer { bounds in
            output.withUnsafeMutableBytes { bytes in
                let target = UnsafeMutableRawBufferPointer(rebasing: bytes[start..<start + count])
                if wide {
                    wideSums.withUnsafeMutableBufferPointer {
                        BoxKernels.reduceAndDivide($0, bounds: bounds, rows: rows, channels: channels, into: target.bindMemory(to: UInt16.self))
                    }
                } else if let fixedPoint {
                    narrowSums.withUnsafeMutableBufferPointer { sums in
                        scratch.withUnsafeMutableBufferPointer { scratch in
                            fixedPoint.emit(
                                sums.baseAddress!, rows: rows, scratch: scratch.baseAddress!, into: target.bindMemory(to: UInt8.self).baseAddress!)
                        }
                        // No clearing: the next row is stored (`pendingRows` is 0).
                    }
                } else {
                    narrowSums.withUnsafeMutableBufferPointer {
                        BoxKernels.reduceAndDivide($0, bounds: bounds, rows: rows, channels: channels, into: target.bindMemory(to: UInt8.self))
                    }
                }
            }
        }
        pendingRows = 0
        outputRow += 1
    }

    /// Divides the box sums into output row `outputRow` and starts the next one.
    private mutating func emitRow() {
        let rows = rowBounds[outputRow + 1] - rowBounds[outputRow]
        let start = outputRow * bytesPerRow, count = bytesPerRow
        let (channels, hasAlpha, wide) = (format.channelCount, format.hasAlpha, format.bitsPerComponent == 16)
        columnBounds.withUnsafeBufferPointer { bounds in
            boxSums.withUnsafeMutableBufferPointer { boxes in
                output.withUnsafeMutableBytes { bytes in
                    let target = UnsafeMutableRawBufferPointer(rebasing: bytes[start..<start + count])
                    if wide {
                        BoxKernels.divide(
                            boxes, bounds: bounds, rows: rows, channels: channels, hasAlpha: hasAlpha,
                            into: target.bindMemory(to: UInt16.self))
                    } else {
                        BoxKernels.divide(
                            boxes, bounds: bounds, rows: rows, channels: channels, hasAlpha: hasAlpha,
                            into: target.bindMemory(to: UInt8.self))
                    }
                    boxes.update(repeating: 0)
                }
            }
        }
        boxSumsInUse = false
        outputRow += 1
    }
}
