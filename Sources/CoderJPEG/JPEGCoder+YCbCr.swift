internal import CJPEG
import Foundation
import ImageKernel

extension JPEGCoder {
    /// Decodes to libjpeg's Y′CbCr planes as stored, without colour conversion or chroma
    /// upsampling, for a pipeline that resizes and re-encodes JPEG (see ``YCbCrImage``).
    ///
    /// The pixel limit and a ``DecodeOptions/shrinkOnLoad`` hint apply as in ``decode(_:options:)``
    /// (the fast DCT scales 1/8, 2/8, 4/8 and 8/8 only; at a reduced scale libjpeg may decode the
    /// chroma on the luma's grid, so the planes' ``YCbCrImage/subsampling`` can be finer than the
    /// file's). Returns nil, having read only the header, when the planes cannot stand for the
    /// image: not three-component Y′CbCr with luma sampled 1x1, 2x1 or 2x2 and chroma 1x1 (gray,
    /// CMYK, YCCK, RGB-stored and exotic samplings), a ``DecodeOptions/thumbnailPixelSize``, an
    /// image over the limit that would need ``DecodeOptions/scaleDownLargeImages``, or an EXIF
    /// orientation other than `up` (the planes are never rotated). Decode those with
    /// ``decode(_:options:)``. Errors are those of ``decode(_:options:)``.
    ///
    /// An `observer` hears the rows as they are decoded (see ``YCbCrDecodeObserver``), for work
    /// on the planes that starts before the decode ends.
    public func decodeYCbCr(_ data: Data, options: DecodeOptions, observer: (any YCbCrDecodeObserver)? = nil) throws(ImageKernelError) -> YCbCrImage? {
        guard !data.isEmpty else {
            throw ImageKernelError(stage: .decode, plugin: name, code: .truncated, message: "no bytes to decode")
        }
        let handle = try JPEGDecoderHandle(pluginName: name)
        return try data.withBytes { (bytes) throws(ImageKernelError) -> YCbCrImage? in
            handle.setSource(bytes)
            guard let header = try handle.readHeader() else {
                throw handle.failure(.internalError, "libjpeg asked for more data after the end of input")
            }
            let metadata = JPEGMetadata(markers: handle.markers())
            guard metadata.orientation == .up, options.thumbnailPixelSize == nil else { return nil }
            let plan = try JPEGScalePlan.make(header: header, options: options, plugin: name, orientation: metadata.orientation, scaledSize: handle.scaledSize)
            guard plan.finalSize == nil, handle.rawEligible(numerator: plan.numerator) else { return nil }
            _ = try handle.startRaw(numerator: plan.numerator)
            let geometries = [try handle.rawPlane(0), try handle.rawPlane(1), try handle.rawPlane(2)]
            var y = Self.planeBuffer(geometries[0])
            var cb = Self.planeBuffer(geometries[1])
            var cr = Self.planeBuffer(geometries[2])
            let chroma = geometries[1]
            guard let subsampling = YCbCrImage.Subsampling(horizontal: Int(chroma.factor_h), vertical: Int(chroma.factor_v)),
                  geometries[2].factor_h == chroma.factor_h, geometries[2].factor_v == chroma.factor_v
            else {
                throw handle.failure(.internalError, "libjpeg's chroma planes span \(chroma.factor_h)x\(chroma.factor_v) luma samples")
            }
            try y.withMutableBytes { (yBytes) throws(ImageKernelError) in
                try cb.withMutableBytes { (cbBytes) throws(ImageKernelError) in
                    try cr.withMutableBytes { (crBytes) throws(ImageKernelError) in
                        let planes = [yBytes, cbBytes, crBytes].map { $0.baseAddress!.assumingMemoryBound(to: UInt8.self) }
                        let strides = geometries.map(\.stride)
                        let layout = YCbCrPlanePointers(
                            width: Int(geometries[0].width), height: Int(geometries[0].height), subsampling: subsampling,
                            planes: zip(planes, geometries).map { plane, geometry in
                                YCbCrPlanePointers.Plane(base: plane, bytesPerRow: geometry.stride, width: Int(geometry.width), height: Int(geometry.height))
                            })
                        guard let observer, observer.decodeStarted(layout) else {
                            try handle.readRawPlanes(planes, strides: strides)
                            return
                        }
                        do throws(ImageKernelError) {
                            try handle.readRawPlanes(planes, strides: strides) { observer.rowsDecoded($0) }
                        } catch {
                            observer.decodeEnded(failed: true)
                            throw error
                        }
                        observer.decodeEnded(failed: false)
                    }
                }
            }
            let buffers = [y, cb, cr]
            var planes: [Image] = []
            for (geometry, pixels) in zip(geometries, buffers) {
                planes.append(try Image(
                    width: Int(geometry.width), height: Int(geometry.height), pixelFormat: .gray8, bytesPerRow: geometry.stride,
                    pixels: pixels, sourceFormat: .jpeg, scale: options.scale))
            }
            return try YCbCrImage(
                luma: planes[0], blueDifference: planes[1], redDifference: planes[2], subsampling: subsampling,
                orientation: metadata.orientation, iccProfile: metadata.rgbICCProfile, metadata: metadata.blocks)
        }
    }

    /// A plane's buffer for libjpeg's raw decode: the bytes past each row's samples and the rows
    /// past the plane's height are zeroed (libjpeg writes whole blocks, and not all of those), so
    /// what SIMD reads past a row is defined; the rest libjpeg overwrites, so it is left as it is
    /// (zeroing the whole buffer took a few microseconds of each decode).
    static func planeBuffer(_ geometry: cjpeg_plane_geometry) -> [UInt8] {
        let stride = geometry.stride, rows = Int(geometry.rows), width = Int(geometry.width), height = Int(geometry.height)
        return [UInt8](unsafeUninitializedCapacity: stride * rows) { buffer, initialized in
            let base = buffer.baseAddress!
            for row in 0..<min(height, rows) where stride > width {
                (base + row * stride + width).initialize(repeating: 0, count: stride - width)
            }
            if rows > height { (base + height * stride).initialize(repeating: 0, count: (rows - height) * stride) }
            initialized = stride * rows
        }
    }

    /// Encodes Y′CbCr planes as they are (libjpeg's raw data input): the planes' subsampling,
    /// ``EncodeOptions/quality`` and ``EncodeOptions/progressive``, the ICC profile as APP2
    /// markers, the planes' ``YCbCrImage/metadata`` as ``EncodeOptions/metadata`` says. ``EncodeOptions/chromaSubsampling444`` does not apply: resample the chroma to
    /// the grid you want first.
    public func encode(_ image: YCbCrImage, options: EncodeOptions) throws(ImageKernelError) -> Data {
        try JPEGEncoder(pluginName: name).encode(planes: image, options: options)
    }

    /// Encodes planes that may still be being written: before each row group, `awaitingRows`
    /// gets the luma rows the encoder needs so far (rows `0 ..< n` of Y and the matching chroma
    /// rows, see ``YCbCrPlanePointers/chromaRows(forLumaRows:)``) and returns once they are final.
    /// Otherwise as the `YCbCrImage` form of `encode(_:options:)`; the planes' memory must outlive the call.
    public func encode(
        _ planes: YCbCrPlanePointers, iccProfile: [UInt8]? = nil, options: EncodeOptions, awaitingRows: @escaping (Int) -> Void
    ) throws(ImageKernelError) -> Data {
        try JPEGEncoder(pluginName: name).encode(planes: planes, iccProfile: iccProfile, options: options, awaitingRows: awaitingRows)
    }
}
