import ImageKernel

/// What a GIF declares, read from its blocks without decoding any pixel: the logical screen,
/// every frame's rectangle and graphic control, and the first NETSCAPE loop count.
///
/// Reading this first lets the decoder check the pixel limit, the frame count and the
/// animation budget before giflib allocates or decodes anything.
struct GIFStructure {
    struct Frame {
        var left: Int
        var top: Int
        var width: Int
        var height: Int
        var interlaced: Bool
        /// GCE disposal method (0–7; 0 and 1 keep the frame, 2 clears it, 3 restores).
        var disposal: Int = 0
        /// GCE delay in hundredths of a second (0 without a GCE).
        var delayCentiseconds: Int = 0
        var transparentIndex: Int?
    }

    var screen: PixelSize
    var frames: [Frame] = []
    /// The first NETSCAPE2.0 (or ANIMEXTS1.0) block's loop count; nil without one.
    var loopCount: Int?

    /// Reads the blocks up to the end, or up to the `maxFrames`th frame's descriptor (its data and
    /// the blocks after it are not read).
    init(_ bytes: UnsafeRawBufferPointer, maxFrames: Int, coder: String) throws(ImageKernelError) {
        var reader = Reader(bytes: bytes)
        guard bytes.count >= 13 else { throw GIFFailure.truncated("no logical screen descriptor", coder: coder) }
        let signature = Array(bytes[0..<6])
        guard signature == Array("GIF87a".utf8) || signature == Array("GIF89a".utf8) else {
            throw GIFFailure.corrupt("no GIF signature", coder: coder)
        }
        reader.offset = 6
        let width = reader.u16(), height = reader.u16()
        let packed = reader.u8()
        reader.offset += 2  // background index, aspect ratio
        guard width > 0, height > 0 else { throw GIFFailure.corrupt("the logical screen is \(width)x\(height)", coder: coder) }
        screen = PixelSize(width: width, height: height)
        if packed & 0x80 != 0 { reader.offset += 3 << ((packed & 7) + 1) }
        var control: (disposal: Int, delay: Int, transparent: Int?)?
        while reader.offset < bytes.count {
            switch reader.u8() {
            case 0x21:
                let label = reader.u8()
                if label == 0xF9, reader.peek == 4 {
                    reader.offset += 1
                    let flags = reader.u8()
                    let delay = reader.u16()
                    let index = reader.u8()
                    control = ((flags >> 2) & 7, delay, flags & 1 != 0 ? index : nil)
                } else if label == 0xFF, reader.peek == 11 {
                    let identifier = reader.bytes(at: reader.offset + 1, count: 11)
                    reader.offset += 12
                    if loopCount == nil, identifier == Array("NETSCAPE2.0".utf8) || identifier == Array("ANIMEXTS1.0".utf8),
                       reader.peek == 3, reader.byte(at: reader.offset + 1) == 1 {
                        loopCount = reader.byte(at: reader.offset + 2) | reader.byte(at: reader.offset + 3) << 8
                    }
                }
                guard reader.skipSubBlocks() else { throw GIFFailure.truncated("an extension ends early", coder: coder) }
            case 0x2C:
                let left = reader.u16(), top = reader.u16(), frameWidth = reader.u16(), frameHeight = reader.u16()
                let flags = reader.u8()
                if flags & 0x80 != 0 { reader.offset += 3 << ((flags & 7) + 1) }
                let codeSize = reader.u8()
                guard reader.offset <= bytes.count else { throw GIFFailure.truncated("frame \(frames.count) ends early", coder: coder) }
                // The spec allows 2...8 (giflib also takes 1); giflib refuses anything over 8.
                guard (1...8).contains(codeSize) else {
                    throw GIFFailure.corrupt("frame \(frames.count)'s LZW minimum code size \(codeSize) is outside 1...8", coder: coder)
                }
                var frame = Frame(left: left, top: top, width: frameWidth, height: frameHeight, interlaced: flags & 0x40 != 0)
                if let control {
                    frame.disposal = control.disposal
                    frame.delayCentiseconds = control.delay
                    frame.transparentIndex = control.transparent
                }
                control = nil
                frames.append(frame)
                if frames.count >= maxFrames { return }
                guard reader.skipSubBlocks() else { throw GIFFailure.truncated("frame \(frames.count - 1)'s data ends early", coder: coder) }
            case 0x3B:
                reader.offset = bytes.count
            default:
                // Garbage after the last frame ends the file, as browsers read it.
                guard !frames.isEmpty else { throw GIFFailure.corrupt("unknown block before the first frame", coder: coder) }
                reader.offset = bytes.count
            }
        }
        guard !frames.isEmpty else { throw GIFFailure.truncated("no frame", coder: coder) }
    }

    /// Little-endian reads that return 0 past the end (the caller checks the offset).
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        func byte(at index: Int) -> Int { index < bytes.count ? Int(bytes[index]) : 0 }
        var peek: Int { byte(at: offset) }
        func bytes(at index: Int, count: Int) -> [UInt8] { (index..<index + count).map { UInt8(byte(at: $0)) } }

        mutating func u8() -> Int {
            defer { offset += 1 }
            return byte(at: offset)
        }

        mutating func u16() -> Int { u8() | u8() << 8 }

        /// Skips data sub-blocks up to and including the terminator; false when the data ends first.
        mutating func skipSubBlocks() -> Bool {
            while offset < bytes.count {
                let length = u8()
                if length == 0 { return true }
                offset += length
            }
            return false
        }
    }
}
