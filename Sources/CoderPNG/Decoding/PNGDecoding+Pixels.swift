import CPNG
import ImageKernel

/// The two ways pixels leave libpng: all at once into a full-size buffer, or row by row into a
/// ``BoxDownscaler`` that never holds more than the output and a few rows.
extension PNGDecoding {
    /// Decodes every pixel into one full-size buffer.
    static func readImage(
        _ decoder: OpaquePointer, header: cpng_header, failure: (cpng_status) -> ImageKernelError
    ) throws(ImageKernelError) -> (pixels: [UInt8], bytesPerRow: Int) {
        let rowBytes = Int(header.rowbytes), height = Int(header.height)
        var status = CPNG_OK
        // Uninitialised on purpose: libpng writes every byte, and zeroing first costs a pass
        // over the whole buffer. On failure the buffer is dropped unread.
        let pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, count in
            status = cpng_decoder_read_image(decoder, buffer.baseAddress, rowBytes)
            count = rowBytes * height
        }
        guard status == CPNG_OK else { throw failure(status) }
        return (pixels, rowBytes)
    }

    /// Decodes a non-interlaced file one row at a time, each row averaged into the `size`
    /// output as it arrives: the memory held is the output plus about two source rows.
    static func readRowsDownscaling(
        _ decoder: OpaquePointer, header: cpng_header, format: PixelFormat, to size: PixelSize,
        failure: (cpng_status) -> ImageKernelError
    ) throws(ImageKernelError) -> [UInt8] {
        let rowBytes = Int(header.rowbytes)
        var scaler = BoxDownscaler(
            format: format, sourceWidth: Int(header.width), sourceHeight: Int(header.height), width: size.width, height: size.height)
        let row = UnsafeMutableRawBufferPointer.allocate(byteCount: rowBytes, alignment: 16)
        defer { row.deallocate() }
        for _ in 0..<header.height {
            let status = cpng_decoder_read_rows(decoder, row.baseAddress, rowBytes, 1)
            guard status == CPNG_OK else { throw failure(status) }
            scaler.add(row: UnsafeRawBufferPointer(row))
        }
        let status = cpng_decoder_finish(decoder)
        guard status == CPNG_OK else { throw failure(status) }
        return scaler.finish()
    }
}
