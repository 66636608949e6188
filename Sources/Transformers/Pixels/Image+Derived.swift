import ImageKernel

extension Image {
    /// A new image with this one's metadata (orientation, ICC profile, EXIF, source format,
    /// scale, timing, notes) and the given pixels, tightly packed; frames are dropped (the manager
    /// transforms each frame on its own).
    func derived(width: Int, height: Int, format: PixelFormat, pixels: [UInt8]) throws(ImageKernelError) -> Image {
        // Starting from a copy keeps every metadata field, including ones added to Image later.
        var result = self
        result.width = width
        result.height = height
        result.pixelFormat = format
        result.bytesPerRow = width * format.bytesPerPixel
        result.pixels = pixels
        result.frames = []
        guard result.isConsistent else {
            throw ImageKernelError(
                stage: .transform, code: .internalError, message: "a \(width)x\(height) \(format) result got a buffer of \(pixels.count) bytes")
        }
        return result
    }

    /// Refuses an image whose fields do not describe its buffer.
    func checkedForTransform(by key: String) throws(ImageKernelError) {
        guard isConsistent else {
            throw ImageKernelError(
                stage: .transform, plugin: key, code: .invalidArgument,
                message: "the \(width)x\(height) \(pixelFormat) image's buffer (\(pixels.count) bytes at \(bytesPerRow) per row) does not hold it")
        }
    }

    /// The same layout with an alpha channel added (gray → gray+alpha, RGB → RGBA); formats with
    /// alpha are returned unchanged.
    var withAlphaFormat: PixelFormat {
        switch pixelFormat.layout {
        case .gray: PixelFormat(layout: .grayAlpha, bitsPerComponent: pixelFormat.bitsPerComponent)
        case .rgb: PixelFormat(layout: .rgba, bitsPerComponent: pixelFormat.bitsPerComponent)
        case .grayAlpha, .rgba: pixelFormat
        }
    }
}
