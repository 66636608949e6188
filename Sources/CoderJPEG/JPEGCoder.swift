import Foundation
import ImageKernel

/// An ``ImageCoder`` for JPEG on libjpeg-turbo (the libjpeg API).
///
/// Decodes baseline, progressive, arithmetic-coded, restart-marker, grayscale, CMYK and YCCK
/// files: grayscale to ``PixelFormat/gray8``, everything else to ``PixelFormat/rgb8`` (CMYK as
/// R = (255 − C)(255 − K)/255 on true ink values, Adobe's inverted storage undone). Reports the
/// EXIF orientation (not applied) and carries the ICC profile and the EXIF, XMP and IPTC blocks
/// (``Image/metadata``: APP1 and APP13). Lossless and 12-bit JPEGs throw
/// ``ImageKernelError/Code/unsupported``.
///
/// A CMYK profile never rides on RGB pixels: with ``DecodeOptions/colorConverter`` set, a CMYK or
/// YCCK file that embeds a CMYK profile is decoded to its CMYK samples and converted through the
/// profile to sRGB (thumbnails at the DCT scale, then area-averaged); without a converter, or
/// without a profile, the naive formula above runs and the CMYK profile is dropped. The
/// progressive decoder's previews and final image use the naive formula.
///
/// A ``DecodeOptions/thumbnailPixelSize`` decodes through libjpeg-turbo's DCT scaling at the
/// smallest *fast* scale (1/8, 2/8, 4/8 or 8/8, the ones with SIMD paths; see ``JPEGScalePlan``)
/// whose output covers ``PixelSize/thumbnail(of:fitting:)``, reading it a strip at a time into an
/// area-average downscale to exactly that size (aspect kept, inside the box). So a thumbnail never
/// costs more than a full decode, and full-size pixels never exist whole. A box with a side of
/// zero or less means full size. A header over ``DecodeOptions/pixelLimit`` is refused before any
/// pixel buffer exists, or, with ``DecodeOptions/scaleDownLargeImages``, delivered at the size of
/// the largest N/8 under the limit (reached from a fast scale when N/8 is a slow one).
///
/// Scaling down has the same ceiling as in every coder,
/// ``DecodeOptions/effectiveScaleDownSourcePixelLimit``: by default 4 × the pixel limit (1.024
/// gigapixels with the default limit of 256 megapixels), so of JPEG's possible 65535×65535 (4.3
/// gigapixels) a 32000×32000 source still scales down and a larger one is refused from its header
/// with `pixelLimitExceeded`. DCT scaling makes each source pixel cheap (at 1/8 only each block's
/// DC coefficient is transformed), but libjpeg still entropy-decodes every block of the source, so
/// the time a scale-down takes grows with the source's pixels.
///
/// A ``DecodeOptions/shrinkOnLoad`` hint (without a thumbnail size) decodes at the smallest fast
/// scale whose output still holds every pixel the caller's resize needs, and resamples nothing:
/// a 4000x3000 photo for a 300x200 fill decodes at 1/8. When a downscale follows at full scale,
/// the cheaper merged chroma upsampling is used, as for thumbnails.
///
/// Encodes gray (as grayscale JPEG) and RGB images; alpha is composited over
/// ``EncodeOptions/backgroundColor`` first and 16-bit samples keep their high byte.
///
/// Register it with `registry.register(JPEGCoder())`. It is a stateless value: safe to share
/// and to call from any number of tasks at once.
public struct JPEGCoder: ProgressiveImageCoder {
    /// `"CoderJPEG"`, the plugin name in errors.
    public let name = "CoderJPEG"

    /// A JPEG coder. It holds no state; one instance can serve a whole process.
    public init() {}

    /// True when the bytes start with the JPEG signature `FF D8 FF`.
    public func canDecode(_ data: Data) -> Bool { ImageFormat.sniff(data) == .jpeg }

    /// True for ``ImageFormat/jpeg`` only.
    public func canEncode(_ format: ImageFormat) -> Bool { format == .jpeg }

    /// Decodes a whole JPEG file.
    ///
    /// Throws `truncated` when the data ends before the image does, `corruptData` for a broken
    /// stream, `unsupported` for lossless, 12-bit or otherwise unsupported JPEGs, and
    /// `pixelLimitExceeded` for headers over the limit. libjpeg's corrupt-data warnings on a
    /// complete stream (for example bad Huffman codes) are tolerated as libjpeg tolerates them.
    public func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        guard !data.isEmpty else {
            throw ImageKernelError(stage: .decode, plugin: name, code: .truncated, message: "no bytes to decode")
        }
        let handle = try JPEGDecoderHandle(pluginName: name)
        return try data.withBytes { (bytes) throws(ImageKernelError) in
            handle.setSource(bytes)
            return try decodeWhole(handle, options: options)
        }
    }

    /// Reads the header, plans the scale, then decodes every row into the image, or (with a final
    /// downscale) a strip at a time through the area resampler.
    private func decodeWhole(_ handle: JPEGDecoderHandle, options: DecodeOptions) throws(ImageKernelError) -> Image {
        guard let header = try handle.readHeader() else {
            throw handle.failure(.internalError, "libjpeg asked for more data after the end of input")
        }
        let metadata = JPEGMetadata(markers: handle.markers())
        let plan = try JPEGScalePlan.make(header: header, options: options, plugin: name, orientation: metadata.orientation, scaledSize: handle.scaledSize)
        if let target = plan.finalSize, header.pixelCount <= options.pixelLimit, handle.rawEligible(numerator: plan.numerator) {
            return try decodeRaw(handle, numerator: plan.numerator, target: target, metadata: metadata, scale: options.scale)
        }
        if let converter = options.colorConverter, let profile = metadata.cmykICCProfile, header.colorSpace == .cmyk || header.colorSpace == .ycck {
            return try decodeManagedCMYK(handle, header: header, plan: plan, metadata: metadata, profile: profile, converter: converter, scale: options.scale)
        }
        handle.setFastUpsampling(plan.usesFastUpsampling)
        let output = try handle.start(numerator: plan.numerator, buffered: false)
        let builder = JPEGImageBuilder(output: output, plan: plan, metadata: metadata, scale: options.scale)
        if plan.finalSize != nil { return try builder.streamedImage(from: handle) }
        let bytesPerRow = output.width * output.channels
        var failure: ImageKernelError?
        // Uninitialised: libjpeg writes every byte, and a zero fill would cost a full pass.
        let pixels = [UInt8](unsafeUninitializedCapacity: bytesPerRow * output.height) { buffer, count in
            let result = Result { () throws(ImageKernelError) in
                try handle.readPixels(into: UnsafeMutableRawBufferPointer(buffer), bytesPerRow: bytesPerRow)
            }
            if case .failure(let error) = result { failure = error }
            count = failure == nil ? buffer.count : 0
        }
        if let failure { throw failure }
        return try builder.image(from: pixels, isPreview: false)
    }

    /// A CMYK or YCCK file with a CMYK profile, with a converter at hand: libjpeg's CMYK samples
    /// (at the plan's DCT scale) go through the profile to sRGB, then down to a thumbnail's size.
    /// The result carries no profile (it is sRGB).
    private func decodeManagedCMYK(
        _ handle: JPEGDecoderHandle, header: JPEGHeader, plan: JPEGScalePlan, metadata: JPEGMetadata, profile: [UInt8],
        converter: any ColorConverter, scale: Double
    ) throws(ImageKernelError) -> Image {
        handle.setCMYKOutput(true)
        let output = try handle.start(numerator: plan.numerator, buffered: false)
        guard output.channels == 4 else { throw handle.failure(.internalError, "libjpeg gave \(output.channels) channels for CMYK") }
        var cmyk = [UInt8](repeating: 0, count: output.width * output.height * 4)
        try cmyk.withMutableBytes { (buffer) throws(ImageKernelError) in
            try handle.readPixels(into: buffer, bytesPerRow: output.width * 4)
        }
        var rgb = [UInt8](repeating: 0, count: output.width * output.height * 3)
        try rgb.withMutableBytes { (destination) throws(ImageKernelError) in
            let converted = cmyk.withUnsafeBytes { source in
                Result { () throws(ImageKernelError) in
                    try converter.convertCMYK(
                        profile: profile, inverted: header.isAdobeInverted, source: source.baseAddress!, sourceStride: output.width * 4,
                        destination: destination.baseAddress!, destinationStride: output.width * 3, width: output.width, rows: output.height, .sRGB)
                }
            }
            try converted.get()
        }
        let image = try Image(
            width: output.width, height: output.height, pixelFormat: .rgb8, pixels: rgb,
            orientation: metadata.orientation, sourceFormat: .jpeg, scale: scale, metadata: metadata.blocks)
        guard let target = plan.finalSize else { return image }
        return try image.areaDownscaled(to: target)
    }

    /// A thumbnail from libjpeg's raw YCbCr planes (YCbCr with common sampling, at the plan's fast
    /// scale): no chroma upsampling or colour conversion at the DCT output size; each plane is
    /// streamed through a small ring of rows, area-averaged straight to `target` and converted to
    /// RGB there. Used within the pixel limit only, so a scale-down of an over-limit image keeps the
    /// path whose memory the planner accounts for.
    private func decodeRaw(
        _ handle: JPEGDecoderHandle, numerator: Int, target: PixelSize, metadata: JPEGMetadata, scale: Double
    ) throws(ImageKernelError) -> Image {
        _ = try handle.startRaw(numerator: numerator)
        let bytesPerRow = target.width * 3
        var failure: ImageKernelError?
        let pixels = [UInt8](unsafeUninitializedCapacity: bytesPerRow * target.height) { buffer, count in
            let result = Result { () throws(ImageKernelError) in
                try handle.readRawResampled(to: target, into: UnsafeMutableRawBufferPointer(buffer), bytesPerRow: bytesPerRow)
            }
            if case .failure(let error) = result { failure = error }
            count = failure == nil ? buffer.count : 0
        }
        if let failure { throw failure }
        return try Image(
            width: target.width, height: target.height, pixelFormat: .rgb8, pixels: pixels,
            orientation: metadata.orientation, iccProfile: metadata.rgbICCProfile, sourceFormat: .jpeg,
            scale: scale, isPreview: false, metadata: metadata.blocks)
    }

    /// A decoder for bytes that arrive in chunks: previews of each completed progressive scan (or
    /// of the rows so far, for a baseline file), then the final image at the EOI marker. The
    /// thumbnail size and pixel limit of `options` apply to previews and the final image.
    public func makeProgressiveDecoder(options: DecodeOptions) -> any ProgressiveImageDecoder {
        JPEGProgressiveDecoder(options: options, pluginName: name)
    }

    /// Encodes to JPEG with ``EncodeOptions/quality`` (0…1 mapped onto libjpeg's 1…100),
    /// ``EncodeOptions/progressive`` and ``EncodeOptions/chromaSubsampling444``; writes the ICC
    /// profile as APP2 markers and the EXIF, XMP and IPTC that ``EncodeOptions/metadata`` lets
    /// through as APP1 and APP13 markers. Throws `unsupported` for any other format.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageKernelError) -> Data {
        guard canEncode(format) else {
            throw ImageKernelError(stage: .encode, plugin: name, code: .unsupported, message: "\(name) cannot encode \(format)")
        }
        return try JPEGEncoder(pluginName: name).encode(image, options: options)
    }
}
