import CWebP
import Foundation
import ImageKernel

extension cwebp_encode_settings {
    /// libwebp's settings for the kernel's options: quality 0–1 → 0–100, compression level 0–9 →
    /// method 0–6, lossless files exact (RGB under alpha 0 kept).
    init(_ options: EncodeOptions) {
        let level = min(9, max(0, options.compressionLevel))
        self.init(
            quality: Float(min(1, max(0, options.quality)) * 100), lossless: options.lossless ? 1 : 0,
            method: Int32((level * 6 + 4) / 9), exact: options.lossless ? 1 : 0, use_threads: 0)
    }
}

/// Encodes one image as a still WebP.
enum WebPStillEncoding {
    static func encode(_ image: Image, options: EncodeOptions, coder: String) throws(ImageKernelError) -> Data {
        try checkSize(image, coder: coder)
        let keepsAlpha = image.pixelFormat.hasAlpha
        let pixels = keepsAlpha ? image.rgba8Pixels() : rgb8Pixels(image)
        let channels: Int32 = keepsAlpha ? 4 : 3
        var settings = cwebp_encode_settings(options)
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = pixels.withUnsafeBufferPointer {
            cwebp_encode($0.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width) * channels, channels, &settings, &output, &size)
        }
        guard status == VP8_ENC_OK.rawValue, let output else {
            throw WebPFailure.encode("encode failed (WebPEncodingError \(status))", coder: coder)
        }
        defer { cwebp_free(output) }
        let metadata = image.metadata.written(by: options.metadata, orientation: image.orientation)
        let icc = image.iccProfile ?? []
        guard !icc.isEmpty || !metadata.isEmpty else { return Data(bytes: output, count: size) }
        return try attach(icc: icc, metadata: metadata, to: UnsafeRawBufferPointer(start: output, count: size), coder: coder)
    }

    /// WebP's sides are at most 16383 pixels.
    static func checkSize(_ image: Image, coder: String) throws(ImageKernelError) {
        guard image.isConsistent, image.width <= Int(WEBP_MAX_DIMENSION), image.height <= Int(WEBP_MAX_DIMENSION) else {
            throw WebPFailure.encode(
                "cannot encode a \(image.width)x\(image.height) image (sides up to \(WEBP_MAX_DIMENSION))", coder: coder,
                code: .invalidArgument)
        }
    }

    /// The file rebuilt with ICCP, EXIF and XMP chunks (WebP has no IPTC chunk).
    private static func attach(icc: [UInt8], metadata: ImageMetadata, to file: UnsafeRawBufferPointer, coder: String) throws(ImageKernelError) -> Data {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let (exif, xmp) = (metadata.exif ?? [], metadata.xmp ?? [])
        let status = icc.withUnsafeBufferPointer { icc in
            exif.withUnsafeBufferPointer { exif in
                xmp.withUnsafeBufferPointer { xmp in
                    cwebp_attach_chunks(
                        file.baseAddress?.assumingMemoryBound(to: UInt8.self), file.count, icc.baseAddress, icc.count,
                        exif.baseAddress, exif.count, xmp.baseAddress, xmp.count, &output, &size)
                }
            }
        }
        guard status == WEBP_MUX_OK.rawValue, let output else {
            throw WebPFailure.encode("adding the ICC profile and metadata failed (WebPMuxError \(status))", coder: coder)
        }
        defer { cwebp_free(output) }
        return Data(bytes: output, count: size)
    }

    /// Tight 8-bit RGB rows of an image without alpha.
    private static func rgb8Pixels(_ image: Image) -> [UInt8] {
        if image.pixelFormat == .rgb8 && image.bytesPerRow == image.width * 3 { return image.pixels }
        let rgba = image.rgba8Pixels()
        var out = [UInt8](repeating: 0, count: image.width * image.height * 3)
        for index in 0..<(image.width * image.height) {
            out[index * 3] = rgba[index * 4]
            out[index * 3 + 1] = rgba[index * 4 + 1]
            out[index * 3 + 2] = rgba[index * 4 + 2]
        }
        return out
    }
}
