import ImageKernel

/// Turns decoded rows into an ``Image``: the final downscale of a thumbnail plan, the pixel
/// format for the channel count, and the metadata.
struct JPEGImageBuilder {
    var output: JPEGDecoderHandle.Output
    var plan: JPEGScalePlan
    var metadata: JPEGMetadata
    var scale: Double

    /// Rows per strip when streaming: libjpeg's largest output batch (16 rows, 4:2:0 at 8/8 gives
    /// 2 per call), small enough to stay in cache.
    static let stripRows = 16

    /// From the whole DCT output (previews of the progressive decoder and full-size decodes).
    func image(from pixels: [UInt8], isPreview: Bool) throws(ImageKernelError) -> Image {
        guard let target = plan.finalSize else {
            return try image(pixels, width: output.width, height: output.height, isPreview: isPreview)
        }
        let shrunk = pixels.withUnsafeBytes { source in
            AreaResampler.downscale(
                source, width: output.width, height: output.height, bytesPerRow: output.width * output.channels,
                channels: output.channels, to: target)
        }
        return try image(shrunk, width: target.width, height: target.height, isPreview: isPreview)
    }

    /// A one-shot decode with a final downscale: rows go from libjpeg a strip at a time into the
    /// resampler, so the DCT output never exists whole (less memory, and the strip stays in cache).
    func streamedImage(from handle: JPEGDecoderHandle) throws(ImageKernelError) -> Image {
        guard let target = plan.finalSize else { preconditionFailure("streamedImage needs a final size") }
        let bytesPerRow = output.width * output.channels
        let resampler = AreaResampler(sourceWidth: output.width, sourceHeight: output.height, channels: output.channels, to: target)
        var strip = [UInt8](repeating: 0, count: bytesPerRow * Self.stripRows)
        try strip.withMutableBytes { (buffer) throws(ImageKernelError) in
            // The strip that ends the image also finishes the decode (and its truncation check).
            while !resampler.isComplete {
                let rows = try handle.readStrip(into: buffer, bytesPerRow: bytesPerRow, capacity: Self.stripRows)
                guard rows > 0 else { throw handle.failure(.internalError, "libjpeg stopped before the last row") }
                resampler.consume(UnsafeRawBufferPointer(buffer), rows: rows, bytesPerRow: bytesPerRow)
            }
        }
        return try image(resampler.finish(), width: target.width, height: target.height, isPreview: false)
    }

    private func image(_ pixels: [UInt8], width: Int, height: Int, isPreview: Bool) throws(ImageKernelError) -> Image {
        try Image(
            width: width, height: height, pixelFormat: output.channels == 1 ? .gray8 : .rgb8, pixels: pixels,
            orientation: metadata.orientation, iccProfile: metadata.rgbICCProfile, sourceFormat: .jpeg,
            scale: scale, isPreview: isPreview, metadata: metadata.blocks)
    }
}
