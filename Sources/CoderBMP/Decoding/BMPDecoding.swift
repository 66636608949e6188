import Foundation
import ImageKernel

/// Decodes a BMP file, or the bitmap of an ICO/CUR entry, into RGB or RGBA rows.
enum BMPDecoding {
    /// Decodes a `BM` file (or the first bitmap of an OS/2 `BA` bitmap array).
    static func decodeFile(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions, pngCoder: (any ImageCoder)?) throws(ImageKernelError) -> Image {
        let data = LittleEndianBytes(bytes: bytes)
        var fileHeader = 0
        if data.u8(0) == UInt8(ascii: "B"), data.u8(1) == UInt8(ascii: "A") {
            // An OS/2 bitmap array: its first bitmap's file header follows; offsets count from the file's start.
            fileHeader = 14
        }
        guard data.u8(fileHeader) == UInt8(ascii: "B"), data.u8(fileHeader + 1) == UInt8(ascii: "M") else {
            throw data.count < fileHeader + 2 ? BMPFailure.truncated("BMP file header is cut short") : BMPFailure.corrupt("not a BMP file (no BM signature)")
        }
        guard let offset = data.u32(fileHeader + 10) else { throw BMPFailure.truncated("BMP file header is cut short") }
        let header = try BMPHeader(data, infoOffset: fileHeader + 14, pixelOffset: Int(offset), halveHeight: false)
        var image = try decodePixels(header, data, options: options, icoMask: false, pngCoder: pngCoder)
        image.iccProfile = image.iccProfile ?? header.iccProfile
        return try thumbnail(image, options: options)
    }

    /// Scales a full decode down to the thumbnail box, if one is asked for (BMP has no reduced decode).
    static func thumbnail(_ image: Image, options: DecodeOptions) throws(ImageKernelError) -> Image {
        guard let box = options.thumbnailPixelSize else { return image }
        let target = PixelSize.thumbnail(of: PixelSize(width: image.width, height: image.height), fitting: box)
        guard target.width < image.width || target.height < image.height else { return image }
        var scaled = try image.areaDownscaled(to: target)
        scaled.decoderNotes[Image.MetadataKey.thumbnailSource] = "downscaled"
        return scaled
    }

    /// Decodes the pixels `header` describes. With `icoMask` (an ICO/CUR entry) the result is
    /// RGBA: a 32-bit entry's fourth byte is its alpha, else the 1-bit AND mask after the pixels is.
    static func decodePixels(
        _ header: BMPHeader, _ data: LittleEndianBytes, options: DecodeOptions, icoMask: Bool, pngCoder: (any ImageCoder)?
    ) throws(ImageKernelError) -> Image {
        switch header.compression {
        case .embeddedPNG: return try decodeEmbeddedPNG(header, data, options: options, pngCoder: pngCoder)
        case .embeddedJPEG: throw BMPFailure.unsupported("BMP with an embedded JPEG is not supported")
        default: break
        }
        let width = header.width, height = header.height
        try BMPFailure.checkPixels("BMP", width: width, height: height, limit: options.pixelLimit)
        guard let stride = header.stride else { throw BMPFailure.corrupt("BMP row size overflows") }
        let isRLE = header.compression == .rle4 || header.compression == .rle8
        let source = data.tail(from: header.pixelOffset)
        if !isRLE {
            // Every row must be there, the last one's padding excepted: checked before allocating.
            let lastRow = (width * header.bitCount + 7) / 8
            let (rows, overflow) = stride.multipliedReportingOverflow(by: height - 1)
            guard header.pixelOffset <= data.count, !overflow, rows <= source.count - lastRow else {
                throw BMPFailure.truncated("BMP pixel data is cut short: \(height) rows of \(stride) bytes do not fit in \(max(0, data.count - header.pixelOffset)) bytes")
            }
        }
        let alphaMask: UInt32 = icoMask && header.bitCount == 32 && header.compression == .none ? 0xFF00_0000 : (header.hasAlpha ? header.masks.alpha : 0)
        let channels = icoMask || header.hasAlpha ? 4 : 3
        let converter = BMPRowConverter(header: header, channels: channels, alphaMask: alphaMask)
        let rowBytes = width * channels
        var pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, count in
            count = buffer.count
            guard let out = buffer.baseAddress else { return }
            @inline(__always) func outputRow(_ fileRow: Int) -> UnsafeMutablePointer<UInt8> {
                out + (header.isTopDown ? fileRow : height - 1 - fileRow) * rowBytes
            }
            if isRLE {
                var indices = [UInt8](repeating: 0, count: width * height)
                indices.withUnsafeMutableBufferPointer { index in
                    BMPRunLength.decode(source, width: width, height: height, nibbles: header.compression == .rle4, into: index)
                    guard let base = index.baseAddress else { return }
                    for row in 0..<height { converter.expandIndexed(base + row * width, bits: 8, into: outputRow(row)) }
                }
            } else {
                for row in 0..<height {
                    converter.convert(UnsafeRawBufferPointer(rebasing: source[(row * stride)...]), into: outputRow(row))
                }
            }
        }
        if icoMask { applyANDMask(header, source: source, rowStride: stride, alphaFromPixels: alphaMask != 0, pixels: &pixels) }
        return try Image(width: width, height: height, pixelFormat: channels == 4 ? .rgba8 : .rgb8, pixels: pixels, sourceFormat: .bmp, scale: options.scale)
    }

    /// An ICO/CUR entry's 1-bit AND mask (1 = transparent) as alpha, for entries without alpha of
    /// their own (and 32-bit entries whose alpha is 0 everywhere, as Windows draws them). Rows the
    /// file does not hold stay opaque; an embedded profile after the pixels ends the mask (a V5
    /// entry with a profile there has no room for one; Pillow reads the entry's last bytes as the
    /// mask, which are then the profile's).
    private static func applyANDMask(_ header: BMPHeader, source: UnsafeRawBufferPointer, rowStride: Int, alphaFromPixels: Bool, pixels: inout [UInt8]) {
        let width = header.width, height = header.height
        if alphaFromPixels && stride(from: 3, to: pixels.count, by: 4).contains(where: { pixels[$0] != 0 }) { return }
        let maskStride = (width + 31) / 32 * 4
        let maskStart = header.compression == .none ? rowStride * height : source.count
        var maskEnd = source.count
        if let profile = header.profileStart, profile >= header.pixelOffset { maskEnd = min(maskEnd, profile - header.pixelOffset) }
        pixels.withUnsafeMutableBufferPointer { out in
            for row in 0..<height {
                let start = maskStart + row * maskStride
                guard start + (width + 7) / 8 <= maskEnd else { break }
                let y = header.isTopDown ? row : height - 1 - row
                for x in 0..<width {
                    out[(y * width + x) * 4 + 3] = source[start + x / 8] & (0x80 >> UInt8(x % 8)) == 0 ? 255 : 0
                }
            }
        }
    }

    /// A BMP whose pixel data is a PNG (BI_PNG), decoded by the injected PNG coder.
    private static func decodeEmbeddedPNG(
        _ header: BMPHeader, _ data: LittleEndianBytes, options: DecodeOptions, pngCoder: (any ImageCoder)?
    ) throws(ImageKernelError) -> Image {
        try BMPFailure.checkPixels("BMP", width: header.width, height: header.height, limit: options.pixelLimit)
        return try EmbeddedPNG.decode(data.tail(from: header.pixelOffset), what: "BMP pixel data", pngCoder: pngCoder, options: options, sourceFormat: .bmp)
    }
}
