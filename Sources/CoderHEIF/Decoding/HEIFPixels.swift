import CLibHEIF
import ImageKernel

/// Decodes one image item to interleaved pixels in a kernel ``PixelFormat``.
enum HEIFPixels {
    /// The kernel format a handle decodes to: RGB or RGBA, gray or gray+alpha for monochrome
    /// files; 16 bits when the file has more than 8 and `preserve16Bit` asks for them.
    static func format(of image: HEIFImageHandle, preserve16Bit: Bool, monochrome: Bool) -> PixelFormat {
        let wide = preserve16Bit && image.lumaBits > 8
        let layout: PixelFormat.Layout
        switch (monochrome, image.hasAlpha) {
        case (true, false): layout = .gray
        case (true, true): layout = .grayAlpha
        case (false, false): layout = .rgb
        case (false, true): layout = .rgba
        }
        return PixelFormat(layout: layout, bitsPerComponent: wide ? 16 : 8)
    }

    /// Decodes `image` (transformations applied) into `format` (colour formats only; gray ones
    /// are taken from libheif's RGB output, whose channels are equal for a monochrome file).
    static func decode(_ image: HEIFImageHandle, as format: PixelFormat, coder: String) throws(ImageKernelError) -> Image {
        let wide = format.bitsPerComponent == 16
        let chroma: heif_chroma
        switch (format.hasAlpha, wide) {
        case (false, false): chroma = heif_chroma_interleaved_RGB
        case (true, false): chroma = heif_chroma_interleaved_RGBA
        case (false, true): chroma = heif_chroma_interleaved_RRGGBB_LE
        case (true, true): chroma = heif_chroma_interleaved_RRGGBBAA_LE
        }
        guard let options = heif_decoding_options_alloc() else {
            throw ImageKernelError(stage: .decode, plugin: coder, code: .internalError, message: "libheif could not allocate decoding options")
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = wide ? 0 : 1
        var decoded: OpaquePointer?
        try HEIFFailure.check(
            heif_decode_image(image.handle, &decoded, heif_colorspace_RGB, chroma, options),
            stage: .decode, coder: coder, doing: "decoding the image")
        guard let decoded else {
            throw ImageKernelError(stage: .decode, plugin: coder, code: .corruptData, message: "libheif returned no image")
        }
        defer { heif_image_release(decoded) }
        let width = Int(heif_image_get_width(decoded, heif_channel_interleaved))
        let height = Int(heif_image_get_height(decoded, heif_channel_interleaved))
        var stride: Int32 = 0
        guard width > 0, height > 0, let plane = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &stride) else {
            throw ImageKernelError(stage: .decode, plugin: coder, code: .corruptData, message: "libheif decoded no pixel plane")
        }
        let sourceChannels = format.hasAlpha ? 4 : 3
        let bits = Int(heif_image_get_bits_per_pixel_range(decoded, heif_channel_interleaved))
        let pixels = pack(
            UnsafeRawPointer(plane), stride: Int(stride), width: width, height: height, sourceChannels: sourceChannels,
            format: format, sourceBits: wide ? bits : 8)
        return try Image(width: width, height: height, pixelFormat: format, pixels: pixels)
    }

    /// Copies libheif's plane into tight rows: gray formats keep one of the equal colour
    /// channels, 16-bit samples of `sourceBits` bits are scaled to the full 16-bit range.
    private static func pack(
        _ plane: UnsafeRawPointer, stride: Int, width: Int, height: Int, sourceChannels: Int, format: PixelFormat, sourceBits: Int
    ) -> [UInt8] {
        let rowBytes = width * format.bytesPerPixel
        let sameLayout = format.channelCount == sourceChannels
        if sameLayout && (format.bitsPerComponent == 8 || sourceBits == 16) {
            return [UInt8](unsafeUninitializedCapacity: rowBytes * height) { out, count in
                for y in 0..<height {
                    UnsafeMutableRawPointer(out.baseAddress! + y * rowBytes).copyMemory(from: plane + y * stride, byteCount: rowBytes)
                }
                count = rowBytes * height
            }
        }
        let picks = format.channelCount == sourceChannels ? Array(0..<sourceChannels) : (format.hasAlpha ? [0, 3] : [0])
        let wide = format.bitsPerComponent == 16
        let up = 16 - sourceBits
        return [UInt8](unsafeUninitializedCapacity: rowBytes * height) { out, count in
            for y in 0..<height {
                let row = plane + y * stride
                if wide {
                    let dest = UnsafeMutableRawPointer(out.baseAddress! + y * rowBytes)
                    for x in 0..<width {
                        for (i, c) in picks.enumerated() {
                            let v = row.loadUnaligned(fromByteOffset: (x * sourceChannels + c) * 2, as: UInt16.self)
                            let scaled = up > 0 ? v << up | v >> (sourceBits - up) : v
                            dest.storeBytes(of: scaled, toByteOffset: (x * picks.count + i) * 2, as: UInt16.self)
                        }
                    }
                } else {
                    let src = row.assumingMemoryBound(to: UInt8.self)
                    let dest = out.baseAddress! + y * rowBytes
                    if format.hasAlpha {  // gray + alpha from RGBA
                        for x in 0..<width {
                            dest[2 * x] = src[4 * x]
                            dest[2 * x + 1] = src[4 * x + 3]
                        }
                    } else {  // gray from RGB
                        for x in 0..<width { dest[x] = src[3 * x] }
                    }
                }
            }
            count = rowBytes * height
        }
    }
}
