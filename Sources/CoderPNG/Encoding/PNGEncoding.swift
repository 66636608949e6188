import CPNG
import Foundation
import ImageKernel

/// Encoding through libpng's writer into memory.
enum PNGEncoding {
    static func encode(_ image: Image, options: EncodeOptions, coder: String) throws(ImageKernelError) -> Data {
        let format = image.pixelFormat
        let tightRow = image.width * format.bytesPerPixel
        guard image.width > 0, image.height > 0, image.bytesPerRow >= tightRow,
              image.pixels.count >= image.bytesPerRow * (image.height - 1) + tightRow,
              format.bitsPerComponent == 8 || image.bytesPerRow % 2 == 0
        else {
            throw ImageKernelError(
                stage: .encode, plugin: coder, code: .invalidArgument,
                message: "the pixel buffer (\(image.pixels.count) bytes) does not hold \(image.width)x\(image.height) \(format)")
        }
        let source = format.isPremultiplied ? image.unpremultiplied() : image

        var params = cpng_encode_params()
        params.stride = source.bytesPerRow
        params.width = UInt32(clamping: source.width)
        params.height = UInt32(clamping: source.height)
        params.channels = UInt32(format.channelCount)
        params.bit_depth = UInt32(format.bitsPerComponent)
        params.compression_level = Int32(clamping: min(9, max(0, options.compressionLevel)))
        params.interlace = options.progressive ? 1 : 0
        let profile = source.iccProfile ?? []
        params.icc_length = profile.count
        if let cicp = source.cicp {
            params.cicp = (cicp.colourPrimaries, cicp.transferCharacteristics, cicp.matrixCoefficients, cicp.fullRange ? 1 : 0)
            params.has_cicp = 1
        }

        // PNG holds EXIF (eXIf) and XMP (iTXt); it has no IPTC chunk.
        let metadata = image.metadata.written(by: options.metadata, orientation: image.orientation)
        let exif = metadata.exif ?? []
        // iTXt text ends at its first NUL: a packet with one is not XML and is left out.
        let xmp = metadata.xmp.flatMap { $0.contains(0) ? nil : $0 + [0] } ?? []
        params.exif_length = exif.count

        var result = cpng_encoded()
        let status = source.pixels.withUnsafeBytes { pixels in
            profile.withUnsafeBytes { icc in
                exif.withUnsafeBytes { exifBytes in
                    xmp.withUnsafeBytes { xmpBytes in
                        params.pixels = pixels.baseAddress
                        params.icc_profile = profile.isEmpty ? nil : icc.baseAddress
                        params.exif = exif.isEmpty ? nil : exifBytes.baseAddress
                        params.xmp = xmp.isEmpty ? nil : xmpBytes.baseAddress?.assumingMemoryBound(to: CChar.self)
                        return cpng_encode(&params, &result)
                    }
                }
            }
        }
        guard status == CPNG_OK, let bytes = result.data else {
            let message = withUnsafeBytes(of: result.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            throw PNGFailure.error(status, message: message, stage: .encode, coder: coder)
        }
        return Data(bytesNoCopy: bytes, count: result.length, deallocator: .free)
    }
}

extension Image {
    /// A straight-alpha copy of a premultiplied image (PNG stores straight alpha).
    func unpremultiplied() -> Image {
        var copy = self
        copy.pixelFormat = PixelFormat(layout: pixelFormat.layout, bitsPerComponent: pixelFormat.bitsPerComponent)
        let channels = pixelFormat.channelCount
        let (width, height, bytesPerRow) = (self.width, self.height, self.bytesPerRow)
        copy.pixels.withUnsafeMutableBytes { raw in
            func restore<Sample: FixedWidthInteger & UnsignedInteger>(_ samples: UnsafeMutableBufferPointer<Sample>, stride: Int) {
                let maximum = UInt64(Sample.max)
                for y in 0..<height {
                    for x in 0..<width {
                        let p = y * stride + x * channels
                        let alpha = UInt64(samples[p + channels - 1])
                        for c in 0..<(channels - 1) {
                            samples[p + c] = alpha == 0 ? 0 : Sample(min(maximum, (UInt64(samples[p + c]) * maximum + alpha / 2) / alpha))
                        }
                    }
                }
            }
            if pixelFormat.bitsPerComponent == 16 {
                restore(raw.bindMemory(to: UInt16.self), stride: bytesPerRow / 2)
            } else {
                restore(raw.bindMemory(to: UInt8.self), stride: bytesPerRow)
            }
        }
        return copy
    }
}
