import CPNG
import Foundation
import ImageKernel

/// One-shot decoding of a whole PNG held in memory.
enum PNGDecoding {
    /// libpng's width/height user limit: no side may exceed the pixel limit either.
    static func maximumDimension(_ options: DecodeOptions) -> UInt32 {
        UInt32(clamping: max(1, options.pixelLimit))
    }

    static func flags(_ options: DecodeOptions) -> Int32 {
        options.preserve16Bit ? CPNG_FLAG_PRESERVE_16 : 0
    }

    static func decode(_ data: Data, options: DecodeOptions, coder: String) throws(ImageKernelError) -> Image {
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageKernelError) -> Image in try decode(bytes, options: options, coder: coder) }
        }
        return try result.get()
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer, options: DecodeOptions, coder: String) throws(ImageKernelError) -> Image {
        guard let decoder = cpng_decoder_create(bytes.baseAddress, bytes.count, maximumDimension(options), flags(options)) else {
            throw PNGFailure.outOfMemory(stage: .decode, coder: coder)
        }
        defer { cpng_decoder_destroy(decoder) }
        func failure(_ status: cpng_status) -> ImageKernelError {
            PNGFailure.error(status, message: String(cString: cpng_decoder_message(decoder)), stage: .decode, coder: coder)
        }

        var header = cpng_header()
        let headerStatus = cpng_decoder_read_header(decoder, &header)
        guard headerStatus == CPNG_OK else { throw failure(headerStatus) }
        let plan = try PNGDecodePlan.make(
            width: Int(header.width), height: Int(header.height), interlaced: header.interlaced != 0, options: options, coder: coder)
        guard let format = PixelFormat(pngHeader: header) else {
            throw ImageKernelError(
                stage: .decode, plugin: coder, code: .unsupported,
                message: "libpng produced \(header.channels) channels of \(header.bit_depth) bits")
        }

        let size = plan.outputSize
        let (pixels, rowBytes): ([UInt8], Int)
        if !plan.isScaled {
            (pixels, rowBytes) = try readImage(decoder, header: header, failure: failure)
        } else if header.interlaced == 0 {
            pixels = try readRowsDownscaling(decoder, header: header, format: format, to: size, failure: failure)
            rowBytes = size.width * format.bytesPerPixel
        } else {
            // Adam7 spreads every row over seven passes, so the full image comes first.
            let (full, fullRowBytes) = try readImage(decoder, header: header, failure: failure)
            pixels = AreaDownscale.downscale(
                full, bytesPerRow: fullRowBytes, format: format, from: plan.sourceSize, to: size)
            rowBytes = size.width * format.bytesPerPixel
        }

        let color = colour(cpng_decoder_color, cpng_decoder_icc_profile, decoder)
        return try Image(
            width: size.width, height: size.height, pixelFormat: format, bytesPerRow: rowBytes, pixels: pixels,
            orientation: orientation(cpng_decoder_exif, decoder), iccProfile: color.profile,
            sourceFormat: .png, scale: options.scale, cicp: color.cicp)
    }

    /// What a PNG says about its colours: its iCCP profile; else cICP's code points; else, without
    /// an `sRGB` chunk, what `cHRM` and `gAMA` describe, as a profile built from them
    /// (``ICCMatrixShaperProfile``) when they differ from sRGB's.
    static func colour(
        _ colorAccessor: (OpaquePointer?, UnsafeMutablePointer<cpng_color_info>?) -> Int32,
        _ profileAccessor: (OpaquePointer?, UnsafeMutablePointer<Int>?) -> UnsafePointer<UInt8>?, _ decoder: OpaquePointer
    ) -> (profile: [UInt8]?, cicp: CICP?) {
        let embedded = copiedBytes(profileAccessor, decoder)
        var info = cpng_color_info()
        guard colorAccessor(decoder, &info) != 0 else { return (embedded, nil) }
        let codePoints = cicp(info)
        if embedded != nil || codePoints != nil || info.has_srgb != 0 { return (embedded, codePoints) }
        return (chunkProfile(info), nil)
    }

    /// The profile `cHRM` and `gAMA` describe, nil when they mean sRGB (or are absent): primaries
    /// within 0.001 of BT.709's with a D65 white, and a gamma of 1/2.2 (read as sRGB, as browsers
    /// do) or none. A `gAMA` alone takes BT.709 primaries; a `cHRM` alone takes gamma 2.2.
    static func chunkProfile(_ info: cpng_color_info) -> [UInt8]? {
        let gammaIsSRGB = info.gamma == 0 || (44_000...47_000).contains(info.gamma)
        let chromaticities = chromaticities(info)
        if gammaIsSRGB && chromaticities.isClose(to: .sRGB) { return nil }
        let gamma = info.gamma == 0 ? 2.2 : 100_000 / Double(info.gamma)
        return ICCMatrixShaperProfile.make(chromaticities: chromaticities, gamma: gamma, description: "PNG cHRM/gAMA")
    }

    /// The chromaticities `cHRM` gives, sRGB's without one.
    static func chromaticities(_ info: cpng_color_info) -> Chromaticities {
        guard info.has_chrm != 0 else { return .sRGB }
        let c = withUnsafeBytes(of: info.chrm) { Array($0.bindMemory(to: Int32.self)).map { Double($0) / 100_000 } }
        return Chromaticities(white: (c[0], c[1]), red: (c[2], c[3]), green: (c[4], c[5]), blue: (c[6], c[7]))
    }

    /// The code points besides iCCP: cICP's; else a bare gAMA that H.273 names (1.0: linear light,
    /// transfer 8; 2.8: transfer 5) with BT.709 primaries (no cHRM, or BT.709's). An `sRGB` chunk or no
    /// colour chunk at all mean sRGB: nil.
    static func cicp(_ color: cpng_color_info) -> CICP? {
        if color.has_cicp != 0 {
            let (p, t, m, r) = color.cicp
            return CICP(colourPrimaries: p, transferCharacteristics: t, matrixCoefficients: m, fullRange: r != 0)
        }
        guard color.has_srgb == 0, chromaticities(color).isClose(to: .sRGB) else { return nil }
        switch color.gamma {
        case 99_000...101_000: return CICP(colourPrimaries: 1, transferCharacteristics: 8, matrixCoefficients: 0, fullRange: true)
        case 35_400...36_000: return CICP(colourPrimaries: 1, transferCharacteristics: 5, matrixCoefficients: 0, fullRange: true)
        default: return nil
        }
    }

    /// Copies the bytes a CPNG accessor returns (ICC profile, eXIf), or nil when there are none.
    static func copiedBytes(
        _ accessor: (OpaquePointer?, UnsafeMutablePointer<Int>?) -> UnsafePointer<UInt8>?, _ decoder: OpaquePointer
    ) -> [UInt8]? {
        var length = 0
        guard let start = accessor(decoder, &length), length > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: start, count: length))
    }

    /// The orientation an eXIf chunk records, `.up` when there is none.
    static func orientation(
        _ accessor: (OpaquePointer?, UnsafeMutablePointer<Int>?) -> UnsafePointer<UInt8>?, _ decoder: OpaquePointer
    ) -> ExifOrientation {
        copiedBytes(accessor, decoder).flatMap(ExifOrientation.init(tiff:)) ?? .up
    }

    /// Averages a whole decoded image down to the requested thumbnail size, if one is set and
    /// smaller (the progressive path, which holds the full buffer anyway).
    static func applyThumbnail(_ image: Image, options: DecodeOptions, coder: String) throws(ImageKernelError) -> Image {
        guard let box = options.thumbnailPixelSize else { return image }
        let source = PixelSize(width: image.width, height: image.height)
        let size = PixelSize.thumbnail(of: source, fitting: box)
        guard size != source else { return image }
        return try AreaDownscale.downscale(image, to: size)
    }
}
