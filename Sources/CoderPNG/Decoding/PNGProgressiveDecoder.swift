import CPNG
import Foundation
import ImageKernel

/// Decodes one PNG from chunks with libpng's progressive ("push") reader.
///
/// libpng's callbacks run in C and copy rows into a C buffer; this class only sees statuses and
/// copies that buffer into previews.
final class PNGProgressiveDecoder: ProgressiveImageDecoder {
    private let options: DecodeOptions
    private let coder: String
    private var decoder: OpaquePointer?
    private var failure: ImageKernelError?
    private var rowsAtLastPreview: UInt64 = 0
    private var passAtLastPreview: Int32 = 0

    init(options: DecodeOptions, coder: String) {
        self.options = options
        self.coder = coder
        decoder = cpng_progressive_create(
            PNGDecoding.maximumDimension(options), UInt64(max(0, options.pixelLimit)), PNGDecoding.flags(options))
        if decoder == nil { failure = PNGFailure.outOfMemory(stage: .decode, coder: coder) }
    }

    deinit { cpng_progressive_destroy(decoder) }

    func append(_ chunk: Data) throws(ImageKernelError) -> Image? {
        if let failure { throw failure }
        guard let decoder else { return nil }  // finished: bytes after IEND are ignored
        let status = chunk.withUnsafeBytes { cpng_progressive_feed(decoder, $0.baseAddress, $0.count) }
        switch status {
        case CPNG_NEED_MORE:
            return try previewIfProgressed(decoder)
        case CPNG_DONE:
            defer {
                cpng_progressive_destroy(decoder)
                self.decoder = nil
            }
            return try image(decoder, isPreview: false)
        default:
            let error = PNGFailure.error(
                status, message: String(cString: cpng_progressive_message(decoder)), stage: .decode, coder: coder)
            failure = error
            throw error
        }
    }

    /// A preview when enough new rows (1/32 of the image) or a new Adam7 pass arrived, so that
    /// feeding a large file in tiny chunks does not copy the whole buffer for every chunk.
    private func previewIfProgressed(_ decoder: OpaquePointer) throws(ImageKernelError) -> Image? {
        var header = cpng_header()
        guard cpng_progressive_header(decoder, &header) != 0 else { return nil }
        let rows = cpng_progressive_rows_delivered(decoder)
        let pass = cpng_progressive_pass(decoder)
        let step = UInt64(max(1, header.height / 32))
        guard rows >= rowsAtLastPreview + step || (pass != passAtLastPreview && rows > rowsAtLastPreview) else { return nil }
        rowsAtLastPreview = rows
        passAtLastPreview = pass
        return try image(decoder, isPreview: true)
    }

    private func image(_ decoder: OpaquePointer, isPreview: Bool) throws(ImageKernelError) -> Image {
        var header = cpng_header()
        guard cpng_progressive_header(decoder, &header) != 0, let start = cpng_progressive_pixels(decoder),
              let format = PixelFormat(pngHeader: header)
        else {
            throw ImageKernelError(stage: .decode, plugin: coder, code: .internalError, message: "libpng finished without a header")
        }
        let rowBytes = Int(header.rowbytes)
        let pixels = Array(UnsafeBufferPointer(start: start, count: rowBytes * Int(header.height)))
        let color = PNGDecoding.colour(cpng_progressive_color, cpng_progressive_icc_profile, decoder)
        let image = try Image(
            width: Int(header.width), height: Int(header.height), pixelFormat: format, bytesPerRow: rowBytes,
            pixels: pixels, orientation: PNGDecoding.orientation(cpng_progressive_exif, decoder),
            iccProfile: color.profile, sourceFormat: .png,
            scale: options.scale, isPreview: isPreview, cicp: color.cicp)
        return try PNGDecoding.applyThumbnail(image, options: options, coder: coder)
    }
}
