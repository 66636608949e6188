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

    /// Encodes Y′CbCr planes without colour conversion or downsampling.
    func encode(planes image: YCbCrImage, options: EncodeOptions) throws(ImageKernelError) -> Data {
        var params = cjpeg_encode_params()
        params.width = UInt32(image.width)
        params.height = UInt32(image.height)
        params.components = 3
        params.quality = Int32(Self.libjpegQuality(options.quality))
        params.progressive = options.progressive ? 1 : 0
        var output: UnsafeMutablePointer<UInt8>?
        var count = 0
        var message = [CChar](repeating: 0, count: 256)
        let icc = image.iccProfile ?? []
        let planes = [image.luma, image.blueDifference, image.redDifference]
        let status = icc.withUnsafeBufferPointer { iccBytes in
            planes[0].pixels.withUnsafeBufferPointer { y in
                planes[1].pixels.withUnsafeBufferPointer { cb in
                    planes[2].pixels.withUnsafeBufferPointer { cr in
                        params.icc = iccBytes.isEmpty ? nil : iccBytes.baseAddress
                        params.icc_count = iccBytes.count
                        var input = cjpeg_planes_input()
                        input.planes = (y.baseAddress, cb.baseAddress, cr.baseAddress)
                        input.strides = (planes[0].bytesPerRow, planes[1].bytesPerRow, planes[2].bytesPerRow)
                        input.widths = (planes[0].width, planes[1].width, planes[2].width)
                        input.heights = (planes[0].height, planes[1].height, planes[2].height)
                        input.factor_h = Int32(image.subsampling.horizontal)
                        input.factor_v = Int32(image.subsampling.vertical)
                        return cjpeg_encode_planes(&params, &input, &output, &count, &message, message.count)
                    }
                }
            }
        }
        guard status == CJPEG_OK.rawValue, let output else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ImageKernelError(stage: .encode, plugin: pluginName, code: .internalError, message: "libjpeg could not encode the planes: \(text)")
        }
        return Data(bytesNoCopy: output, count: count, deallocator: .custom { pointer, _ in cjpeg_free(pointer) })
    }

    /// Maps 0…1 onto libjpeg's 1…100.
    static func libjpegQuality(_ quality: Double) -> Int {
        guard quality.isFinite else { return 90 }
        return 1 + Int((min(1, max(0, quality)) * 99).rounded())
    }
}
