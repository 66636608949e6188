import CWebP
import Foundation
import ImageKernel

/// Decodes a still WebP straight into the image's buffer, scaled by libwebp where asked.
enum WebPStillDecoding {
    static func decode(_ bytes: UnsafeRawBufferPointer, header: WebPHeader, options: DecodeOptions, coder: String) throws(ImageKernelError) -> Image {
        let target = try options.webpOutputSize(for: header.size, coder: coder)
        var config = try makeConfig(header: header, target: target, coder: coder)
        let format = header.stillPixelFormat
        let rowBytes = target.width * format.bytesPerPixel
        let count = rowBytes * target.height
        var status = VP8_STATUS_OK
        // libwebp writes every byte of the external buffer it is given, so it starts uninitialised.
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            config.output.is_external_memory = 1
            config.output.u.RGBA.rgba = buffer.baseAddress
            config.output.u.RGBA.stride = Int32(rowBytes)
            config.output.u.RGBA.size = count
            status = WebPDecode(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &config)
            if status != VP8_STATUS_OK { buffer.initialize(repeating: 0) }
            initialized = count
        }
        WebPFreeDecBuffer(&config.output)
        guard status == VP8_STATUS_OK else { throw WebPFailure.decode(status, coder: coder) }
        let metadata = WebPMetadata(bytes, header: header)
        return try Image(
            width: target.width, height: target.height, pixelFormat: format, bytesPerRow: rowBytes, pixels: pixels,
            orientation: metadata.orientation, iccProfile: metadata.iccProfile, sourceFormat: .webp, scale: options.scale,
            metadata: metadata.blocks)
    }

    /// A decoder configuration for RGB(A) output at `target` (libwebp's scaler when smaller
    /// than the canvas: it resamples row by row, so a lossy thumbnail never holds the canvas).
    static func makeConfig(header: WebPHeader, target: PixelSize, coder: String) throws(ImageKernelError) -> WebPDecoderConfig {
        var config = WebPDecoderConfig()
        guard cwebp_init_decoder_config(&config) != 0 else {
            throw ImageKernelError(stage: .decode, plugin: coder, code: .internalError, message: "libwebp: decoder ABI mismatch")
        }
        config.output.colorspace = header.stillPixelFormat == .rgba8 ? MODE_RGBA : MODE_RGB
        if target != header.size {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(target.width)
            config.options.scaled_height = Int32(target.height)
        }
        return config
    }
}
