import CTIFF
import Foundation
import ImageKernel

/// Writes one page with libtiff into a growing memory buffer: the image's own layout and depth
/// (gray, gray+alpha, RGB, RGBA; 8 or 16 bits), so the round trip is exact.
enum TIFFEncoding {
    static func encode(
        _ image: Image, compression: TIFFCoder.Compression, options: EncodeOptions, coder: String
    ) throws(ImageKernelError) -> Data {
        guard image.isConsistent, image.width <= Int(UInt32.max), image.height <= Int(UInt32.max) else {
            throw ImageKernelError(
                stage: .encode, plugin: coder, code: .invalidArgument,
                message: "TIFF: cannot encode a \(image.width)x\(image.height) image with \(image.bytesPerRow) bytes per row")
        }
        let format = image.pixelFormat
        var params = ctiff_encode_params()
        params.width = UInt32(image.width)
        params.height = UInt32(image.height)
        params.channels = UInt16(format.channelCount)
        params.bits = UInt16(format.bitsPerComponent)
        params.premultiplied = format.isPremultiplied ? 1 : 0
        params.compression = UInt16(compression == .lzw ? COMPRESSION_LZW : COMPRESSION_ADOBE_DEFLATE)
        params.level = Int32(min(9, max(1, options.compressionLevel)))
        let sink = UnsafeMutablePointer<ctiff_sink>.allocate(capacity: 1)
        sink.initialize(to: ctiff_sink())
        defer {
            ctiff_sink_free(sink)
            sink.deallocate()
        }
        let icc = image.iccProfile ?? []
        let ok = icc.withUnsafeBufferPointer { profile in
            params.icc = profile.isEmpty ? nil : profile.baseAddress
            params.icc_size = UInt32(clamping: profile.count)
            return image.pixels.withUnsafeBufferPointer { ctiff_encode(sink, &params, $0.baseAddress, image.bytesPerRow) }
        }
        guard ok == 1 else { throw TIFFFailure.libtiff(sink.pointee.messages, what: "encoding", stage: .encode, coder: coder) }
        return Data(bytes: sink.pointee.bytes, count: Int(sink.pointee.size))
    }
}
