import CLibHEIF
import Foundation
import ImageKernel

/// The encode path of ``HEIFCoder``: the image as straight 8-bit RGB(A) into a libheif image,
/// encoded with x265 (HEIC) or libaom (AVIF), optionally with a stored thumbnail.
enum HEIFEncoding {
    /// libheif's compression for a kernel format, when the installed libheif can encode it.
    static func compression(for format: ImageFormat) -> heif_compression_format? {
        HEIFLibrary.ensureInitialised()
        let compression: heif_compression_format
        switch format {
        case .heic: compression = heif_compression_HEVC
        case .avif: compression = heif_compression_AV1
        default: return nil
        }
        return heif_have_encoder_for_format(compression) != 0 ? compression : nil
    }

    static func encode(
        _ image: Image, compression: heif_compression_format, options: EncodeOptions, thumbnailBox: Int? = nil, coder: String
    ) throws(ImageKernelError) -> Data {
        guard image.isConsistent else {
            throw ImageKernelError(stage: .encode, plugin: coder, code: .invalidArgument, message: "the image's buffer does not match its size")
        }
        guard let context = heif_context_alloc() else {
            throw ImageKernelError(stage: .encode, plugin: coder, code: .internalError, message: "libheif could not allocate a context")
        }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try HEIFFailure.check(
            heif_context_get_encoder_for_format(context, compression, &encoder), stage: .encode, coder: coder, doing: "finding an encoder")
        guard let encoder else {
            throw ImageKernelError(stage: .encode, plugin: coder, code: .unsupported, message: "libheif has no encoder for this format")
        }
        defer { heif_encoder_release(encoder) }
        try configure(encoder, options: options, coder: coder)

        guard let encodingOptions = heif_encoding_options_alloc(), let nclx = heif_nclx_color_profile_alloc() else {
            throw ImageKernelError(stage: .encode, plugin: coder, code: .internalError, message: "libheif could not allocate encoding options")
        }
        defer {
            heif_encoding_options_free(encodingOptions)
            heif_nclx_color_profile_free(nclx)
        }
        if options.lossless {
            // libheif 1.15 ignores an output nclx when converting RGB, so lossless images are
            // handed over as 4:4:4 planes already in the identity matrix (G, B, R) and tagged so.
            nclx.pointee.matrix_coefficients = heif_matrix_coefficients_RGB_GBR
            nclx.pointee.full_range_flag = 1
            encodingOptions.pointee.output_nclx_profile = nclx
        }
        if let cicp = image.cicp, image.iccProfile?.isEmpty ?? true {
            // The colour description as code points (an ICC profile, when there is one, is written
            // instead, below). Lossy samples keep libheif's own matrix (BT.601, full range).
            _ = heif_nclx_color_profile_set_color_primaries(nclx, UInt16(cicp.colourPrimaries))
            _ = heif_nclx_color_profile_set_transfer_characteristics(nclx, UInt16(cicp.transferCharacteristics))
            if !options.lossless {
                _ = heif_nclx_color_profile_set_matrix_coefficients(nclx, 6)
                nclx.pointee.full_range_flag = 1
            }
        }

        let primary = try HEIFImage(image, identityPlanes: options.lossless ? nclx : nil, coder: coder)
        if image.cicp != nil, image.iccProfile?.isEmpty ?? true, !options.lossless {
            // libheif writes the input image's nclx as the `colr` box (its output nclx only steers
            // the conversion, which 1.15 ignores for RGB input).
            try HEIFFailure.check(heif_image_set_nclx_color_profile(primary.image, nclx), stage: .encode, coder: coder, doing: "tagging the colours")
        }
        var handle: OpaquePointer?
        try HEIFFailure.check(
            heif_context_encode_image(context, primary.image, encoder, encodingOptions, &handle),
            stage: .encode, coder: coder, doing: "encoding the image")
        defer { if let handle { heif_image_handle_release(handle) } }
        // HEIF holds EXIF and XMP items; it has no IPTC item.
        let metadata = image.metadata.written(by: options.metadata, orientation: image.orientation)
        if let exif = metadata.exif, !exif.isEmpty, let handle {
            try HEIFFailure.check(
                heif_context_add_exif_metadata(context, handle, exif, Int32(clamping: exif.count)),
                stage: .encode, coder: coder, doing: "adding EXIF")
        }
        if let xmp = metadata.xmp, !xmp.isEmpty, let handle {
            try HEIFFailure.check(
                heif_context_add_XMP_metadata(context, handle, xmp, Int32(clamping: xmp.count)),
                stage: .encode, coder: coder, doing: "adding XMP")
        }
        if let box = thumbnailBox, let handle {
            try encodeThumbnail(of: image, fitting: box, master: handle, context: context, encoder: encoder, options: encodingOptions, coder: coder)
        }
        return try write(context, coder: coder)
    }

    private static func configure(_ encoder: OpaquePointer, options: EncodeOptions, coder: String) throws(ImageKernelError) {
        if options.lossless {
            try HEIFFailure.check(heif_encoder_set_lossless(encoder, 1), stage: .encode, coder: coder, doing: "asking for lossless")
            _ = heif_encoder_set_parameter_string(encoder, "chroma", "444")
        } else {
            let quality = Int32((min(1, max(0, options.quality)) * 100).rounded())
            try HEIFFailure.check(heif_encoder_set_lossy_quality(encoder, quality), stage: .encode, coder: coder, doing: "setting the quality")
            if options.chromaSubsampling444 { _ = heif_encoder_set_parameter_string(encoder, "chroma", "444") }
        }
    }

    /// Stores `image` averaged down to fit `box` as the thumbnail of `master` (when it is smaller).
    private static func encodeThumbnail(
        of image: Image, fitting box: Int, master: OpaquePointer, context: OpaquePointer, encoder: OpaquePointer,
        options: UnsafeMutablePointer<heif_encoding_options>, coder: String
    ) throws(ImageKernelError) {
        let size = PixelSize.thumbnail(of: PixelSize(width: image.width, height: image.height), fitting: PixelSize(width: box, height: box))
        guard size.width < image.width || size.height < image.height else { return }
        let thumbnail = try HEIFImage(image.areaDownscaled(to: size), identityPlanes: nil, coder: coder)
        var handle: OpaquePointer?
        try HEIFFailure.check(
            heif_context_encode_image(context, thumbnail.image, encoder, options, &handle), stage: .encode, coder: coder, doing: "encoding the thumbnail")
        guard let handle else { return }
        defer { heif_image_handle_release(handle) }
        // libheif 1.15 writes the `thmb` reference from its second argument to its third, the
        // reverse of what the header's names say (checked with heif-info): thumbnail first.
        try HEIFFailure.check(heif_context_assign_thumbnail(context, handle, master), stage: .encode, coder: coder, doing: "assigning the thumbnail")
        // encode_image made the thumbnail a top-level image too; the master stays the primary one.
        try HEIFFailure.check(heif_context_set_primary_image(context, master), stage: .encode, coder: coder, doing: "keeping the primary image")
    }

    /// The context serialised to bytes.
    private static func write(_ context: OpaquePointer, coder: String) throws(ImageKernelError) -> Data {
        final class Sink { var data = Data() }
        let sink = Sink()
        var writer = heif_writer(writer_api_version: 1) { _, bytes, size, user in
            let sink = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
            if let bytes, size > 0 { sink.data.append(bytes.assumingMemoryBound(to: UInt8.self), count: size) }
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        }
        let status = withExtendedLifetime(sink) { heif_context_write(context, &writer, Unmanaged.passUnretained(sink).toOpaque()) }
        try HEIFFailure.check(status, stage: .encode, coder: coder, doing: "writing the file")
        return sink.data
    }
}

/// A libheif image holding a copy of a kernel image: interleaved 8-bit RGB or RGBA, or for
/// lossless encodes 4:4:4 planes in the identity matrix (Y = G, Cb = B, Cr = R, plus alpha).
final class HEIFImage {
    let image: OpaquePointer

    init(_ source: Image, identityPlanes nclx: UnsafeMutablePointer<heif_color_profile_nclx>?, coder: String) throws(ImageKernelError) {
        let alpha = source.pixelFormat.hasAlpha
        let rgba = source.rgba8Pixels()
        let planar = nclx != nil
        var created: OpaquePointer?
        try HEIFFailure.check(
            heif_image_create(
                Int32(source.width), Int32(source.height), planar ? heif_colorspace_YCbCr : heif_colorspace_RGB,
                planar ? heif_chroma_444 : (alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB), &created),
            stage: .encode, coder: coder, doing: "creating an image")
        guard let created else {
            throw ImageKernelError(stage: .encode, plugin: coder, code: .internalError, message: "libheif created no image")
        }
        image = created
        // (plane, RGBA channel it takes, sample stride in the plane)
        let layout: [(heif_channel, Int, Int)] =
            planar
            ? [(heif_channel_Y, 1, 1), (heif_channel_Cb, 2, 1), (heif_channel_Cr, 0, 1)] + (alpha ? [(heif_channel_Alpha, 3, 1)] : [])
            : (alpha ? [(heif_channel_interleaved, -4, 4)] : [(heif_channel_interleaved, -3, 3)])
        for (channel, take, step) in layout {
            try fill(channel, from: rgba, take: take, step: step, source: source, coder: coder)
        }
        if let nclx { try HEIFFailure.check(heif_image_set_nclx_color_profile(created, nclx), stage: .encode, coder: coder, doing: "tagging the matrix") }
        if let icc = source.iccProfile, !icc.isEmpty {
            try HEIFFailure.check(
                heif_image_set_raw_color_profile(created, "prof", icc, icc.count), stage: .encode, coder: coder, doing: "adding the ICC profile")
        }
    }

    /// Adds a plane and copies RGBA channel `take` into it, or (`take` negative) the first
    /// `-take` channels of every pixel, interleaved.
    private func fill(_ channel: heif_channel, from rgba: [UInt8], take: Int, step: Int, source: Image, coder: String) throws(ImageKernelError) {
        let (width, height) = (source.width, source.height)
        try HEIFFailure.check(
            heif_image_add_plane(image, channel, Int32(width), Int32(height), 8), stage: .encode, coder: coder, doing: "adding a plane")
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(image, channel, &stride) else {
            throw ImageKernelError(stage: .encode, plugin: coder, code: .internalError, message: "libheif gave no plane to fill")
        }
        rgba.withUnsafeBufferPointer { src in
            for y in 0..<height {
                let row = plane + y * Int(stride)
                let from = src.baseAddress! + y * width * 4
                if take == -4 {
                    row.update(from: from, count: width * 4)
                } else if take < 0 {
                    for x in 0..<width { for c in 0..<step { row[x * step + c] = from[x * 4 + c] } }
                } else {
                    for x in 0..<width { row[x] = from[x * 4 + take] }
                }
            }
        }
    }

    deinit { heif_image_release(image) }
}
