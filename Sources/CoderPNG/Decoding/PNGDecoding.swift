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

        return try Image(
            width: size.width, height: size.height, pixelFormat: format, bytesPerRow: rowBytes, pixels: pixels,
            orientation: orientation(cpng_decoder_exif, decoder), iccProfile: copiedBytes(cpng_decoder_icc_profile, decoder),
            sourceFormat: .png, scale: options.scale, cicp: cicp(cpng_decoder_color, decoder),
            metadata: ImageMetadata(exif: copiedBytes(cpng_decoder_exif, decoder), xmp: copiedBytes(cpng_decoder_xmp, decoder)))
    }

    /// The colour description besides iCCP: cICP's code points; else a gAMA that H.273 names
    /// (1.0: linear light, transfer 8; 2.8: transfer 5) with BT.709 primaries. An `sRGB` chunk,
    /// gAMA 1/2.2 (read as sRGB, as browsers do) or no colour chunk at all mean sRGB: nil. cHRM
    /// is not read (primaries other than BT.709 with a bare gAMA are rare and not converted).
    static func cicp(_ accessor: (OpaquePointer?, UnsafeMutablePointer<cpng_color_info>?) -> Int32, _ decoder: OpaquePointer) -> CICP? {
        var color = cpng_color_info()
        guard accessor(decoder, &color) != 0 else { return nil }
        if color.has_cicp != 0 {
            let (p, t, m, r) = color.cicp
            return CICP(colourPrimaries: p, transferCharacteristics: t, matrixCoefficients: m, fullRange: r != 0)
        }
        guard color.has_srgb == 0 else { return nil }
        switch color.gamma {
        case 99_000...101_000: return CICP(colourPrimaries: 1, transferCharacteristics: 8, matrixCoefficients: 0, fullRange: true)
        case 35_400...36_000: return CICP(colourPrimaries: 1, transferCharacteristics: 5, matrixCoefficients: 0, fullRange: true)
        default: return nil
        }
    }

    /// Copies the bytes a CPNG accessor returns (ICC profile, eXIf, XMP), or nil when there are none.
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
