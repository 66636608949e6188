import CGIF
import Foundation
import ImageKernel

/// Writes a still or animated GIF89a with giflib: one local colour table per frame (see
/// ``PaletteQuantizer``), full-canvas frames, a NETSCAPE2.0 block for animations.
enum GIFEncoding {
    static func encode(_ image: Image, options: EncodeOptions, coder: String) throws(ImageKernelError) -> Data {
        guard image.isConsistent, image.width <= 65535, image.height <= 65535 else {
            throw failure("cannot encode a \(image.width)x\(image.height) image (sides up to 65535)", coder: coder, code: .invalidArgument)
        }
        let frames = image.allFrames
        for (index, frame) in frames.enumerated() where frame.image.width != image.width || frame.image.height != image.height {
            throw failure(
                "frame \(index) is \(frame.image.width)x\(frame.image.height), not the canvas size \(image.width)x\(image.height)",
                coder: coder, code: .invalidArgument)
        }
        var sink = cgif_sink()
        defer { cgif_sink_free(&sink) }
        var error: Int32 = 0
        guard let gif = cgif_open_sink(&sink, &error) else { throw GIFFailure.giflib(error, stage: .encode, coder: coder, what: "open") }
        do {
            try write(frames, loopCount: image.loopCount, to: gif, size: PixelSize(width: image.width, height: image.height), coder: coder)
        } catch {
            EGifCloseFile(gif, nil)
            throw error
        }
        guard EGifCloseFile(gif, &error) == GIF_OK else { throw GIFFailure.giflib(error, stage: .encode, coder: coder, what: "closing") }
        return Data(bytes: sink.bytes, count: sink.size)
    }

    private static func write(
        _ frames: [ImageFrame], loopCount: Int?, to gif: UnsafeMutablePointer<GifFileType>, size: PixelSize, coder: String
    ) throws(ImageKernelError) {
        func check(_ status: Int32, _ what: String) throws(ImageKernelError) {
            if status != GIF_OK { throw GIFFailure.giflib(gif.pointee.Error, stage: .encode, coder: coder, what: what) }
        }
        EGifSetGifVersion(gif, true)
        try check(EGifPutScreenDesc(gif, Int32(size.width), Int32(size.height), 8, 0, nil), "screen descriptor")
        let animated = frames.count > 1
        if animated {
            let loops = min(65535, max(0, loopCount ?? 0))
            try check(EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE), "NETSCAPE block")
            try check(Array("NETSCAPE2.0".utf8).withUnsafeBufferPointer { EGifPutExtensionBlock(gif, 11, $0.baseAddress) }, "NETSCAPE block")
            try check([UInt8(1), UInt8(loops & 0xFF), UInt8(loops >> 8)].withUnsafeBufferPointer { EGifPutExtensionBlock(gif, 3, $0.baseAddress) }, "NETSCAPE block")
            try check(EGifPutExtensionTrailer(gif), "NETSCAPE block")
        }
        var next = PaletteQuantizer(rgba: frames[0].image.rgba8Pixels())
        for (index, frame) in frames.enumerated() {
            let quantized = next
            if index + 1 < frames.count { next = PaletteQuantizer(rgba: frames[index + 1].image.rgba8Pixels()) }
            let clearsAfter = index + 1 < frames.count && next.transparentIndex != nil
            if animated || quantized.transparentIndex != nil {
                // Frames are full canvases: a frame followed by one with transparent pixels is
                // cleared after it shows, so the next is drawn on transparent black, not over it.
                var control = GraphicsControlBlock(
                    DisposalMode: clearsAfter ? DISPOSE_BACKGROUND : DISPOSE_DO_NOT, UserInputFlag: false,
                    DelayTime: Int32(min(65535.0, max(0.0, (frame.duration * 100).rounded()))),
                    TransparentColor: quantized.transparentIndex.map { Int32($0) } ?? NO_TRANSPARENT_COLOR)
                var extensionBytes = [UInt8](repeating: 0, count: 4)
                let length = EGifGCBToExtension(&control, &extensionBytes)
                try check(EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, Int32(length), extensionBytes), "frame \(index)'s graphic control")
            }
            let bits = max(1, Int.bitWidth - (quantized.colorCount - 1).leadingZeroBitCount)
            guard let map = quantized.palette.withUnsafeBufferPointer({ cgif_make_map(Int32(bits), $0.baseAddress, Int32(quantized.colorCount)) }) else {
                throw failure("out of memory for a colour table", coder: coder)
            }
            defer { GifFreeMapObject(map) }
            try check(EGifPutImageDesc(gif, 0, 0, Int32(size.width), Int32(size.height), false, map), "frame \(index)'s descriptor")
            var indices = quantized.indices
            try check(EGifPutLine(gif, &indices, Int32(indices.count)), "frame \(index)'s pixels")
        }
    }

    private static func failure(_ message: String, coder: String, code: ImageKernelError.Code = .internalError) -> ImageKernelError {
        ImageKernelError(stage: .encode, plugin: coder, code: code, message: "GIF: \(message)")
    }
}
