import CLibHEIF
import Foundation
import ImageKernel

/// One parsed HEIF file: a libheif context over a private copy of the bytes, freed on deinit.
/// Used by one decode at a time.
final class HEIFFile {
    let context: OpaquePointer
    private let bytes: UnsafeMutableRawBufferPointer
    let coder: String

    /// Parses the file's boxes (no pixels are decoded yet). `sideLimit`, when given, makes libheif
    /// refuse any image, tile or grid with a longer side before allocating it.
    init(_ data: Data, sideLimit: Int?, threads: Int?, coder: String) throws(ImageKernelError) {
        HEIFLibrary.ensureInitialised()
        self.coder = coder
        guard let context = heif_context_alloc() else {
            throw ImageKernelError(stage: .decode, plugin: coder, code: .internalError, message: "libheif could not allocate a context")
        }
        self.context = context
        bytes = .allocate(byteCount: max(1, data.count), alignment: 16)
        data.copyBytes(to: bytes.bindMemory(to: UInt8.self), count: data.count)
        if let sideLimit { heif_context_set_maximum_image_size_limit(context, Int32(clamping: sideLimit)) }
        if let threads { heif_context_set_max_decoding_threads(context, Int32(clamping: threads)) }
        try HEIFFailure.check(
            heif_context_read_from_memory_without_copy(context, bytes.baseAddress, data.count, nil),
            stage: .decode, coder: coder, doing: "reading the file")
    }

    deinit {
        heif_context_free(context)
        bytes.deallocate()
    }

    /// The primary image.
    func primaryImage() throws(ImageKernelError) -> HEIFImageHandle {
        var handle: OpaquePointer?
        try HEIFFailure.check(heif_context_get_primary_image_handle(context, &handle), stage: .decode, coder: coder, doing: "finding the primary image")
        guard let handle else {
            throw ImageKernelError(stage: .decode, plugin: coder, code: .corruptData, message: "libheif found no primary image")
        }
        return HEIFImageHandle(handle, file: self)
    }
}

/// An image item of a ``HEIFFile`` (primary image or thumbnail), released on deinit.
final class HEIFImageHandle {
    let handle: OpaquePointer
    /// Keeps the context (and the bytes) alive while the handle is in use.
    let file: HEIFFile

    init(_ handle: OpaquePointer, file: HEIFFile) {
        self.handle = handle
        self.file = file
    }

    deinit { heif_image_handle_release(handle) }

    /// Size with `irot`/`imir`/`clap` applied: the size of the decoded image.
    var size: PixelSize { PixelSize(width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle))) }
    /// The coded size the `ispe` property declares (before transformations; 0 when absent).
    var ispeSize: PixelSize {
        PixelSize(width: Int(heif_image_handle_get_ispe_width(handle)), height: Int(heif_image_handle_get_ispe_height(handle)))
    }
    var hasAlpha: Bool { heif_image_handle_has_alpha_channel(handle) != 0 }
    var isPremultiplied: Bool { heif_image_handle_is_premultiplied_alpha(handle) != 0 }
    /// Bits per luma sample (8, 10, 12), or -1 when undefined.
    var lumaBits: Int { Int(heif_image_handle_get_luma_bits_per_pixel(handle)) }

    /// The thumbnails stored for this image.
    func thumbnails() -> [HEIFImageHandle] {
        let count = Int(heif_image_handle_get_number_of_thumbnails(handle))
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: count)
        let filled = Int(heif_image_handle_get_list_of_thumbnail_IDs(handle, &ids, Int32(count)))
        return ids.prefix(filled).compactMap { id in
            var thumb: OpaquePointer?
            guard heif_image_handle_get_thumbnail(handle, id, &thumb).code == heif_error_Ok, let thumb else { return nil }
            return HEIFImageHandle(thumb, file: file)
        }
    }

    /// The embedded ICC profile (`colr` box of type `prof` or `rICC`), if any.
    func iccProfile() -> [UInt8]? {
        let type = heif_image_handle_get_color_profile_type(handle)
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC else { return nil }
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        guard size > 0 else { return nil }
        var profile = [UInt8](repeating: 0, count: size)
        guard heif_image_handle_get_raw_color_profile(handle, &profile).code == heif_error_Ok else { return nil }
        return profile
    }

    /// The `nclx` colour box's code points, if the file has one (libheif 1.15 reads them from
    /// `colr` boxes only, not from the coded stream).
    func cicp() -> CICP? {
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        guard heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok, let nclx else { return nil }
        defer { heif_nclx_color_profile_free(nclx) }
        let value = nclx.pointee
        return CICP(
            colourPrimaries: UInt8(truncatingIfNeeded: value.color_primaries.rawValue),
            transferCharacteristics: UInt8(truncatingIfNeeded: value.transfer_characteristics.rawValue),
            matrixCoefficients: UInt8(truncatingIfNeeded: value.matrix_coefficients.rawValue),
            fullRange: value.full_range_flag != 0)
    }

    /// The first `Exif` metadata block without its 4-byte TIFF-header offset, if any.
    func exif() -> [UInt8]? {
        var id: heif_item_id = 0
        guard heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) == 1 else { return nil }
        let size = heif_image_handle_get_metadata_size(handle, id)
        guard size > 4 else { return nil }
        var block = [UInt8](repeating: 0, count: size)
        guard heif_image_handle_get_metadata(handle, id, &block).code == heif_error_Ok else { return nil }
        // ISO/IEC 23008-12 Annex A: a 32-bit big-endian offset to the TIFF header precedes the data.
        let offset = Int(block[0]) << 24 | Int(block[1]) << 16 | Int(block[2]) << 8 | Int(block[3])
        guard offset >= 0, 4 + offset < size else { return nil }
        return Array(block[(4 + offset)...])
    }

    /// The first XMP packet: a `mime` metadata item of content type `application/rdf+xml`.
    func xmp() -> [UInt8]? {
        let count = Int(heif_image_handle_get_number_of_metadata_blocks(handle, "mime"))
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: min(count, 64))
        let listed = Int(heif_image_handle_get_list_of_metadata_block_IDs(handle, "mime", &ids, Int32(ids.count)))
        for id in ids.prefix(listed) {
            guard let type = heif_image_handle_get_metadata_content_type(handle, id), String(cString: type) == "application/rdf+xml" else { continue }
            let size = heif_image_handle_get_metadata_size(handle, id)
            guard size > 0 else { continue }
            var block = [UInt8](repeating: 0, count: size)
            guard heif_image_handle_get_metadata(handle, id, &block).code == heif_error_Ok else { continue }
            return block
        }
        return nil
    }
}
