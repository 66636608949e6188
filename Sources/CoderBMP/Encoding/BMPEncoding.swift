import ImageKernel

/// Writes BMP files and the bitmaps of ICO entries.
enum BMPEncoding {
    /// A BMP file: 24-bit BI_RGB (40-byte header) for images without alpha, 32-bit BI_BITFIELDS
    /// with an alpha mask (108-byte V4 header) for images with alpha; a V5 header with the
    /// profile embedded when the image has an ICC profile. Rows bottom-up, as most readers expect.
    static func encodeFile(_ image: Image) throws(ImageKernelError) -> [UInt8] {
        try checkEncodable(image)
        let hasAlpha = image.pixelFormat.hasAlpha
        let profile = image.iccProfile ?? []
        let headerSize = profile.isEmpty ? (hasAlpha ? 108 : 40) : 124
        let bitCount = hasAlpha ? 32 : 24
        let stride = (image.width * bitCount + 31) / 32 * 4
        let pixelOffset = 14 + headerSize
        let imageSize = stride * image.height
        guard imageSize <= Int(UInt32.max) - pixelOffset - profile.count else {
            throw BMPFailure.unsupported("\(image.width)x\(image.height) is too large for a BMP file", stage: .encode)
        }
        var out = ByteWriter()
        out.bytes.reserveCapacity(pixelOffset + imageSize + profile.count)
        out.u8(UInt8(ascii: "B")); out.u8(UInt8(ascii: "M"))
        out.u32(pixelOffset + imageSize + profile.count)
        out.u32(0)
        out.u32(pixelOffset)
        writeInfoHeader(&out, image: image, headerSize: headerSize, bitCount: bitCount, height: image.height, imageSize: imageSize, bitfields: hasAlpha)
        if headerSize == 124 {
            // bV5CSType = PROFILE_EMBEDDED, then the profile's place after the pixels (from the info header's start).
            out.bytes.replaceSubrange((14 + 56)..<(14 + 60), with: le32(Int(BMPHeader.profileEmbedded)))
            out.bytes.replaceSubrange((14 + 108)..<(14 + 112), with: le32(4))  // LCS_GM_IMAGES
            out.bytes.replaceSubrange((14 + 112)..<(14 + 116), with: le32(headerSize + imageSize))
            out.bytes.replaceSubrange((14 + 116)..<(14 + 120), with: le32(profile.count))
        }
        appendRows(&out, image: image, bitCount: bitCount)
        out.bytes.append(contentsOf: profile)
        return out.bytes
    }

    /// The bitmap of an ICO entry: 40-byte header with doubled height, 32-bit BGRA rows
    /// bottom-up, then the AND mask (1 where alpha is 0).
    static func encodeICOEntry(_ image: Image) throws(ImageKernelError) -> [UInt8] {
        try checkEncodable(image)
        let stride = image.width * 4
        let maskStride = (image.width + 31) / 32 * 4
        var out = ByteWriter()
        writeInfoHeader(&out, image: image, headerSize: 40, bitCount: 32, height: image.height * 2, imageSize: (stride + maskStride) * image.height, bitfields: false)
        var rgbaImage = image
        rgbaImage.pixels = image.rgba8Pixels()
        rgbaImage.pixelFormat = .rgba8
        rgbaImage.bytesPerRow = stride
        appendRows(&out, image: rgbaImage, bitCount: 32)
        let rgba = rgbaImage.pixels
        for y in (0..<image.height).reversed() {
            var row = [UInt8](repeating: 0, count: maskStride)
            for x in 0..<image.width where rgba[(y * image.width + x) * 4 + 3] == 0 { row[x / 8] |= 0x80 >> UInt8(x % 8) }
            out.bytes.append(contentsOf: row)
        }
        return out.bytes
    }

    private static func checkEncodable(_ image: Image) throws(ImageKernelError) {
        guard image.isConsistent else {
            throw ImageKernelError(stage: .encode, plugin: BMPFailure.plugin, code: .invalidArgument, message: "image fields do not describe its buffer")
        }
        guard image.width <= Int(Int32.max) / 4, image.height <= Int(Int32.max) / 2 else {
            throw BMPFailure.unsupported("\(image.width)x\(image.height) is too large for BMP", stage: .encode)
        }
    }

    private static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    private static func writeInfoHeader(
        _ out: inout ByteWriter, image: Image, headerSize: Int, bitCount: Int, height: Int, imageSize: Int, bitfields: Bool
    ) {
        let start = out.bytes.count
        out.u32(headerSize)
        out.u32(image.width)
        out.u32(height)
        out.u16(1)
        out.u16(bitCount)
        out.u32(bitfields ? 3 : 0)
        out.u32(imageSize)
        out.u32(2835); out.u32(2835)  // 72 dpi
        out.u32(0); out.u32(0)
        if headerSize >= 108 {
            out.u32(0x00FF_0000); out.u32(0x0000_FF00); out.u32(0x0000_00FF); out.u32(bitfields ? 0xFF00_0000 : 0)
            out.u32(0x7352_4742)  // 'sRGB'
        }
        out.zeros(headerSize - (out.bytes.count - start))
    }

    /// Rows bottom-up as BGR (24-bit, padded to 4 bytes) or BGRA (32-bit).
    private static func appendRows(_ out: inout ByteWriter, image: Image, bitCount: Int) {
        let fast = image.pixelFormat == (bitCount == 32 ? .rgba8 : .rgb8)
        let source = fast ? image.pixels : image.rgba8Pixels()
        let inChannels = fast ? image.pixelFormat.channelCount : 4
        let inStride = fast ? image.bytesPerRow : image.width * 4
        let outChannels = bitCount / 8
        let stride = (image.width * bitCount + 31) / 32 * 4
        let start = out.bytes.count
        out.zeros(stride * image.height)
        out.bytes.withUnsafeMutableBufferPointer { dest in
            source.withUnsafeBufferPointer { src in
                for y in 0..<image.height {
                    let s = (image.height - 1 - y) * inStride
                    let d = start + y * stride
                    for x in 0..<image.width {
                        let i = s + x * inChannels, o = d + x * outChannels
                        dest[o] = src[i + 2]; dest[o + 1] = src[i + 1]; dest[o + 2] = src[i]
                        if outChannels == 4 { dest[o + 3] = src[i + 3] }
                    }
                }
            }
        }
    }
}
