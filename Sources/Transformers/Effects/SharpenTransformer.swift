import ImageKernel

/// Unsharp mask: the image plus (image − its Gaussian blur of ``sigma``) times ``amount``.
public struct SharpenTransformer: ImageTransformer {
    public let sigma: Double
    /// How much of the detail is added back; 1 by default.
    public let amount: Double
    /// At most this many threads (0: every core). Not part of the key: the output is the same.
    public var threadLimit: Int

    public init(sigma: Double, amount: Double = 1, threadLimit: Int = 0) {
        self.sigma = sigma
        self.amount = amount
        self.threadLimit = threadLimit
    }

    /// `sharpen:SIGMA`, plus `:AMOUNT` when it is not 1.
    public var key: String { amount == 1 ? "sharpen:\(SpecNumber.format(sigma))" : "sharpen:\(SpecNumber.format(sigma)):\(SpecNumber.format(amount))" }

    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        try image.checkedForTransform(by: key)
        let filter = try GaussianBlurTransformer.filter(sigma: sigma, for: image, threadLimit: threadLimit, key: key)
        let codec = WorkingRowCodec(image.pixelFormat)
        let gain = Float(amount), width = image.width
        let result = image.pixels.withUnsafeBytes { source in
            let base = source.baseAddress!
            return Result { () throws(ImageKernelError) in try filter.apply(to: image, codec: codec, outputFormat: image.pixelFormat) { y, blurred in
                let original = UnsafeMutablePointer<WorkingPixel>.allocate(capacity: width)
                defer { original.deallocate() }
                codec.load(base + y * image.bytesPerRow, width: width, into: original)
                for x in 0..<width {
                    let o = original[x]
                    var sharp = o + (o - blurred[x]) * gain
                    sharp.w = o.w
                    // Premultiplied colour may not exceed alpha.
                    if codec.premultiplies { sharp = sharp.replacing(with: WorkingPixel(repeating: o.w), where: sharp .> o.w) }
                    blurred[x] = sharp
                }
            } }
        }
        return try result.get()
    }
}
