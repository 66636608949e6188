import CWebP
import Foundation
import ImageKernel

/// Decodes an animated WebP with libwebp's `WebPAnimDecoder`: every frame composited on the
/// canvas (disposal and alpha blending applied by libwebp), straight RGBA.
enum WebPAnimationDecoding {
    static func decode(_ bytes: UnsafeRawBufferPointer, header: WebPHeader, options: DecodeOptions, coder: String) throws(ImageKernelError) -> Image {
        let canvas = header.size
        // The decoder allocates two canvases when it is created, so the limit comes first.
        guard canvas.width * canvas.height <= options.pixelLimit else {
            throw WebPFailure.pixelLimit(canvas, limit: options.pixelLimit, coder: coder)
        }
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let decoder = cwebp_anim_decoder_new(base, bytes.count, 0)
        else { throw WebPFailure.corrupt("invalid animation container", coder: coder) }
        defer { WebPAnimDecoderDelete(decoder) }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0, info.frame_count > 0,
              Int(info.canvas_width) == canvas.width, Int(info.canvas_height) == canvas.height
        else { throw WebPFailure.corrupt("invalid animation header", coder: coder) }
        // One, all, or the first `maxFrameCount` (`keepFirst`): libwebp decodes frames on demand,
        // so the ones after them are never decoded.
        let frameCount = try options.firstFrameOnly ? 1 : options.checkAnimationBudget(frameCount: Int(info.frame_count), canvas: canvas, plugin: coder)
        let thumbnail = options.thumbnailPixelSize.map { PixelSize.thumbnail(of: canvas, fitting: $0) }
        let metadata = WebPMetadata(bytes, header: header)
        let canvasBytes = canvas.width * canvas.height * 4
        var frames: [ImageFrame] = []
        frames.reserveCapacity(frameCount)
        var previousTimestamp: Int32 = 0
        while frames.count < frameCount {
            var buffer: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &buffer, &timestamp) != 0, let buffer else {
                throw WebPFailure.corrupt("frame \(frames.count) of \(info.frame_count) does not decode", coder: coder)
            }
            var image = try Image(
                width: canvas.width, height: canvas.height, pixelFormat: .rgba8,
                pixels: Array(UnsafeBufferPointer(start: buffer, count: canvasBytes)),
                orientation: metadata.orientation, iccProfile: metadata.iccProfile, sourceFormat: .webp, scale: options.scale,
                metadata: frames.isEmpty ? metadata.blocks : ImageMetadata())
            if let thumbnail, thumbnail != canvas { image = image.areaDownscaledRGBA8(to: thumbnail) }
            frames.append(ImageFrame(image: image, duration: Double(timestamp - previousTimestamp) / 1000))
            previousTimestamp = timestamp
        }
        return try Image(animating: frames, loopCount: Int(info.loop_count))
    }
}
