import CGIF
import Foundation
import ImageKernel

/// Decodes a GIF: the structure is read and checked first, then giflib decompresses each frame
/// row by row onto a ``GIFCanvas``.
enum GIFDecoding {
    static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions, coder: String) throws(ImageKernelError) -> Image {
        // Frames past the ones decoded are not even parsed: a file cut or broken after them decodes.
        let keepsFirst = options.framesOverLimit == .keepFirst && options.maxFrameCount >= 1
        let structure = try GIFStructure(bytes, maxFrames: options.firstFrameOnly ? 1 : keepsFirst ? options.maxFrameCount : .max, coder: coder)
        let canvasSize = structure.screen
        guard canvasSize.width * canvasSize.height <= options.pixelLimit else {
            throw GIFFailure.pixelLimit("logical screen", canvasSize, limit: options.pixelLimit, coder: coder)
        }
        // We clip frames to the screen (their rows are still decompressed), but a decoder that grows the canvas to hold every frame
        // (Pillow) would need the box around them all: a file whose frames reach that far past
        // its screen is a decompression bomb for others and is refused as one.
        let extent = structure.frames.reduce(canvasSize) {
            PixelSize(width: max($0.width, $1.left + $1.width), height: max($0.height, $1.top + $1.height))
        }
        guard extent.width * extent.height <= options.pixelLimit else {
            throw GIFFailure.pixelLimit("screen grown to hold every frame", extent, limit: options.pixelLimit, coder: coder)
        }
        // The frames decoded: one, all, or the first `maxFrameCount` (`keepFirst`); no later frame's pixels are read.
        let frameCount = try options.firstFrameOnly ? 1 : options.checkAnimationBudget(frameCount: structure.frames.count, canvas: canvasSize, plugin: coder)

        var source = cgif_source(data: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: bytes.count, offset: 0)
        var error: Int32 = 0
        guard let gif = cgif_open_source(&source, &error) else { throw GIFFailure.giflib(error, stage: .decode, coder: coder, what: "open") }
        defer { DGifCloseFile(gif, &error) }
        let thumbnail = options.thumbnailPixelSize.map { PixelSize.thumbnail(of: canvasSize, fitting: $0) }
        let isAnimated = structure.frames.count > 1
        var canvas = GIFCanvas(size: canvasSize)
        var row = [UInt8](repeating: 0, count: max(1, structure.frames.map(\.width).max() ?? 1))
        var frames: [ImageFrame] = []
        frames.reserveCapacity(frameCount)
        while frames.count < frameCount {
            var record = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(gif, &record) == GIF_OK else { throw GIFFailure.giflib(gif.pointee.Error, stage: .decode, coder: coder, what: "reading a record") }
            switch record {
            case IMAGE_DESC_RECORD_TYPE:
                let frame = structure.frames[frames.count]
                guard DGifGetImageDesc(gif) == GIF_OK else {
                    throw GIFFailure.giflib(gif.pointee.Error, stage: .decode, coder: coder, what: "frame \(frames.count)'s descriptor")
                }
                canvas.begin(frame, colorMap: gif.pointee.Image.ColorMap ?? gif.pointee.SColorMap)
                try decodeRows(gif, frame: frame, row: &row, canvas: &canvas, index: frames.count, coder: coder)
                var image = try Image(
                    width: canvasSize.width, height: canvasSize.height, pixelFormat: .rgba8, pixels: canvas.snapshot(),
                    sourceFormat: .gif, scale: options.scale)
                if let thumbnail, thumbnail != canvasSize { image = image.areaDownscaledRGBA8(to: thumbnail) }
                frames.append(ImageFrame(image: image, duration: duration(frame, isAnimated: isAnimated)))
                canvas.dispose()
            case EXTENSION_RECORD_TYPE:
                try skipExtension(gif, coder: coder)
            default:
                throw GIFFailure.corrupt("giflib found \(frames.count) of \(frameCount) frames", coder: coder)
            }
        }
        return try Image(animating: frames, loopCount: structure.loopCount)
    }

    /// A frame's duration: the GCE delay; in an animation a delay of 10 ms or less plays as
    /// 100 ms, as Chrome, Firefox and Safari do (and SDWebImage's GIF coder).
    static func duration(_ frame: GIFStructure.Frame, isAnimated: Bool) -> Double {
        if isAnimated && frame.delayCentiseconds <= 1 { return 0.1 }
        return Double(frame.delayCentiseconds) / 100
    }

    private static func decodeRows(
        _ gif: UnsafeMutablePointer<GifFileType>, frame: GIFStructure.Frame, row: inout [UInt8], canvas: inout GIFCanvas,
        index: Int, coder: String
    ) throws(ImageKernelError) {
        guard frame.width > 0, frame.height > 0 else {
            // An empty frame still has (empty) LZW data; read past it.
            var codeSize: Int32 = 0
            try readSubBlocks(gif, what: "frame \(index)", coder: coder, first: { DGifGetCode(gif, &codeSize, $0) }, next: DGifGetCodeNext)
            return
        }
        let status = row.withUnsafeMutableBufferPointer { canvas.draw(from: gif, row: $0.baseAddress!) }
        if status != GIF_OK { throw GIFFailure.giflib(gif.pointee.Error, stage: .decode, coder: coder, what: "frame \(index)'s pixels") }
    }

    private static func skipExtension(_ gif: UnsafeMutablePointer<GifFileType>, coder: String) throws(ImageKernelError) {
        var code: Int32 = 0
        try readSubBlocks(gif, what: "an extension", coder: coder, first: { DGifGetExtension(gif, &code, $0) }, next: DGifGetExtensionNext)
    }

    /// Reads a run of data sub-blocks with giflib's first/next pair, discarding them.
    private static func readSubBlocks(
        _ gif: UnsafeMutablePointer<GifFileType>, what: String, coder: String,
        first: (UnsafeMutablePointer<UnsafeMutablePointer<GifByteType>?>) -> Int32,
        next: (UnsafeMutablePointer<GifFileType>?, UnsafeMutablePointer<UnsafeMutablePointer<GifByteType>?>?) -> Int32
    ) throws(ImageKernelError) {
        var block: UnsafeMutablePointer<GifByteType>?
        var status = first(&block)
        while status == GIF_OK && block != nil { status = next(gif, &block) }
        if status != GIF_OK { throw GIFFailure.giflib(gif.pointee.Error, stage: .decode, coder: coder, what: what) }
    }
}
