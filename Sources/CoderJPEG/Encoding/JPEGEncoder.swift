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
        let markers = JPEGMetadata.encodedMarkers(image.metadata.written(by: options.metadata, orientation: image.orientation))
        let status = icc.withUnsafeBufferPointer { iccBytes in
            markers.withUnsafeBufferPointer { markerBytes in
                input.withPixels { pixels, bytesPerRow in
                    params.icc = iccBytes.isEmpty ? nil : iccBytes.baseAddress
                    params.icc_count = iccBytes.count
                    params.markers = markerBytes.isEmpty ? nil : markerBytes.baseAddress
                    params.markers_count = markerBytes.count
                    return cjpeg_encode(&params, pixels, bytesPerRow, &output, &count, &message, message.count)
                }
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
        let planes = [image.luma, image.blueDifference, image.redDifference]
        return try planes[0].pixels.withUnsafeBufferPointer { (y) throws(ImageKernelError) -> Data in
            try planes[1].pixels.withUnsafeBufferPointer { (cb) throws(ImageKernelError) -> Data in
                try planes[2].pixels.withUnsafeBufferPointer { (cr) throws(ImageKernelError) -> Data in
                    let pointers = YCbCrPlanePointers(
                        width: image.width, height: image.height, subsampling: image.subsampling,
                        planes: zip([y, cb, cr], planes).map { buffer, plane in
                            YCbCrPlanePointers.Plane(base: buffer.baseAddress!, bytesPerRow: plane.bytesPerRow, width: plane.width, height: plane.height)
                        })
                    return try encode(
                        planes: pointers, iccProfile: image.iccProfile, options: options, awaitingRows: nil,
                        metadata: image.metadata.written(by: options.metadata, orientation: image.orientation))
                }
            }
        }
    }

    /// Encodes planes given as pointers; `awaitingRows`, when given, is asked before each row
    /// group for the luma rows the encoder needs so far and returns once they are final.
    /// `metadata` is written as it is (the policy already applied).
    func encode(
        planes: YCbCrPlanePointers, iccProfile: [UInt8]?, options: EncodeOptions, awaitingRows: ((Int) -> Void)?,
        metadata: ImageMetadata = ImageMetadata()
    ) throws(ImageKernelError) -> Data {
        var params = cjpeg_encode_params()
        params.width = UInt32(planes.width)
        params.height = UInt32(planes.height)
        params.components = 3
        params.quality = Int32(Self.libjpegQuality(options.quality))
        params.progressive = options.progressive ? 1 : 0
        var output: UnsafeMutablePointer<UInt8>?
        var count = 0
        var message = [CChar](repeating: 0, count: 256)
        let icc = iccProfile ?? []
        let markers = JPEGMetadata.encodedMarkers(metadata)
        var input = cjpeg_planes_input()
        input.planes = (planes.planes[0].base, planes.planes[1].base, planes.planes[2].base)
        input.strides = (planes.planes[0].bytesPerRow, planes.planes[1].bytesPerRow, planes.planes[2].bytesPerRow)
        input.widths = (planes.planes[0].width, planes.planes[1].width, planes.planes[2].width)
        input.heights = (planes.planes[0].height, planes.planes[1].height, planes.planes[2].height)
        input.factor_h = Int32(planes.subsampling.horizontal)
        input.factor_v = Int32(planes.subsampling.vertical)
        let run = { (input: inout cjpeg_planes_input) -> Int32 in
            icc.withUnsafeBufferPointer { iccBytes in
                markers.withUnsafeBufferPointer { markerBytes in
                    params.icc = iccBytes.isEmpty ? nil : iccBytes.baseAddress
                    params.icc_count = iccBytes.count
                    params.markers = markerBytes.isEmpty ? nil : markerBytes.baseAddress
                    params.markers_count = markerBytes.count
                    return cjpeg_encode_planes(&params, &input, &output, &count, &message, message.count)
                }
            }
        }
        let status: Int32
        if let awaitingRows {
            status = withoutActuallyEscaping(awaitingRows) { awaitingRows in
                let box = RowsCallback(awaitingRows)
                input.await_rows = RowsCallback.thunk
                input.await_context = Unmanaged.passUnretained(box).toOpaque()
                return withExtendedLifetime(box) { run(&input) }
            }
        } else {
            status = run(&input)
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
