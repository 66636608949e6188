internal import CJPEG
import Foundation
import ImageKernel

/// Encodes an ``Image`` as JPEG through the C shim.
struct JPEGEncoder {
    var pluginName: String

    func encode(_ image: Image, options: EncodeOptions) throws(ImageKernelError) -> Data {
        let input = JPEGEncodeInput(image, background: options.backgroundColor)
        var params = cjpeg_encode_params()
        params.width = UInt32(image.width)
        params.height = UInt32(image.height)
        params.components = Int32(input.components)
        params.quality = Int32(Self.libjpegQuality(options.quality))
        params.progressive = options.progressive ? 1 : 0
        params.subsampling_444 = options.chromaSubsampling444 ? 1 : 0
        var output: UnsafeMutablePointer<UInt8>?
        var count = 0
        var message = [CChar](repeating: 0, count: 256)
        let icc = image.iccProfile ?? []
        let status = icc.withUnsafeBufferPointer { iccBytes in
            input.withPixels { pixels, bytesPerRow in
                params.icc = iccBytes.isEmpty ? nil : iccBytes.baseAddress
                params.icc_count = iccBytes.count
                return cjpeg_encode(&params, pixels, bytesPerRow, &output, &count, &message, message.count)
            }
        }
        guard status == CJPEG_OK.rawValue, let output else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ImageKernelError(stage: .encode, plugin: pluginName, code: .internalError, message: "libjpeg could not encode: \(text)")
        }
        return Data(bytesNoCopy: output, count: count, deallocator: .custom { pointer, _ in cjpeg_free(pointer) })
    }

    /// Maps 0…1 onto libjpeg's 1…100.
    static func libjpegQuality(_ quality: Double) -> Int {
        guard quality.isFinite else { return 90 }
        return 1 + Int((min(1, max(0, quality)) * 99).rounded())
    }
}
