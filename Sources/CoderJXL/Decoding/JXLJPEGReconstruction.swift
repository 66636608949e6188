import CJXL
import Foundation
import ImageKernel

/// The original JPEG of a JPEG XL made from one by lossless transcoding (`cjxl in.jpg`), rebuilt
/// by libjxl from the `jbrd` box and the DCT coefficients, bit for bit.
enum JXLJPEGReconstruction {
    static func jpeg(_ bytes: UnsafeRawBufferPointer, threads: Int, coder: String) throws(ImageKernelError) -> Data? {
        guard ImageFormat.sniff(bytes) == .jxl, let base = bytes.baseAddress else {
            throw ImageKernelError(stage: .decode, plugin: coder, code: .corruptData, message: "JPEG XL: no JPEG XL signature")
        }
        let session = try JXLSession(threads: threads, coder: coder)
        let decoder = session.decoder
        let events = JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_JPEG_RECONSTRUCTION.rawValue | JXL_DEC_FULL_IMAGE.rawValue
        guard JxlDecoderSubscribeEvents(decoder, Int32(events)) == JXL_DEC_SUCCESS,
            JxlDecoderSetInput(decoder, base.assumingMemoryBound(to: UInt8.self), bytes.count) == JXL_DEC_SUCCESS
        else { throw session.failure("setup", coder: coder) }
        JxlDecoderCloseInput(decoder)
        var output = UnsafeMutableRawBufferPointer.allocate(byteCount: max(64 << 10, bytes.count * 2), alignment: 1)
        defer { output.deallocate() }
        var written = 0
        var reconstructing = false
        while true {
            switch JxlDecoderProcessInput(decoder) {
            case JXL_DEC_BASIC_INFO:
                var info = JxlBasicInfo()
                guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else { throw session.failure("basic info", coder: coder) }
                session.allow(canvas: PixelSize(width: Int(info.xsize), height: Int(info.ysize)))
            case JXL_DEC_JPEG_RECONSTRUCTION:
                reconstructing = true
                guard JxlDecoderSetJPEGBuffer(decoder, output.baseAddress?.assumingMemoryBound(to: UInt8.self), output.count) == JXL_DEC_SUCCESS
                else { throw session.failure("JPEG buffer", coder: coder) }
            case JXL_DEC_JPEG_NEED_MORE_OUTPUT:
                written = output.count - JxlDecoderReleaseJPEGBuffer(decoder)
                let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: output.count * 2, alignment: 1)
                larger.copyMemory(from: UnsafeRawBufferPointer(rebasing: output[..<written]))
                output.deallocate()
                output = larger
                guard
                    JxlDecoderSetJPEGBuffer(
                        decoder, output.baseAddress?.assumingMemoryBound(to: UInt8.self).advanced(by: written), output.count - written)
                        == JXL_DEC_SUCCESS
                else { throw session.failure("JPEG buffer", coder: coder) }
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                // Pixels are wanted: the file holds no JPEG to rebuild.
                return nil
            case JXL_DEC_FULL_IMAGE, JXL_DEC_SUCCESS:
                guard reconstructing else { return nil }
                let end = output.count - JxlDecoderReleaseJPEGBuffer(decoder)
                return Data(UnsafeRawBufferPointer(rebasing: output[..<end]))
            case JXL_DEC_NEED_MORE_INPUT:
                throw ImageKernelError(stage: .decode, plugin: coder, code: .truncated, message: "JPEG XL: the data ends before the JPEG does")
            default:
                throw session.failure("JPEG reconstruction", coder: coder)
            }
        }
    }
}
