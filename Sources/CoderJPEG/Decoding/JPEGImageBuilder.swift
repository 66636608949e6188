import ImageKernel

/// Turns decoded rows into an ``Image``: the final downscale of a thumbnail plan, the pixel
/// format for the channel count, and the metadata.
struct JPEGImageBuilder {
    var output: JPEGDecoderHandle.Output
    var plan: JPEGScalePlan
    var metadata: JPEGMetadata
    var scale: Double

    func image(from pixels: [UInt8], isPreview: Bool) throws(ImageKernelError) -> Image {
        let format: PixelFormat = output.channels == 1 ? .gray8 : .rgb8
        var width = output.width
        var height = output.height
        var pixels = pixels
        if let target = plan.finalSize {
            pixels = pixels.withUnsafeBytes { source in
                AreaResampler.downscale(
                    source, width: width, height: height, bytesPerRow: width * output.channels,
                    channels: output.channels, to: target)
            }
            width = target.width
            height = target.height
        }
        return try Image(
            width: width, height: height, pixelFormat: format, pixels: pixels,
            orientation: metadata.orientation, iccProfile: metadata.iccProfile, sourceFormat: .jpeg,
            scale: scale, isPreview: isPreview)
    }
}
