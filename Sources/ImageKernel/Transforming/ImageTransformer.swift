/// Turns one image into another (resize, crop, blur…).
///
/// ## Implementation requirements
/// - `Sendable` and pure: the same input and key give the same output; called from background
///   tasks, possibly concurrently.
/// - ``key`` is stable across runs and unique per configuration (`"resize(100x100,fill)"`): it is
///   appended to the cache key, so two transformers with the same key must produce the same image.
/// - Throw ``ImageKernelError`` (stage `.transform`) rather than crash on images you cannot handle.
public protocol ImageTransformer: Sendable {
    /// The stable identity of this transformer's configuration.
    var key: String { get }
    /// The transformed image.
    func transform(_ image: Image) throws(ImageKernelError) -> Image
    /// The transformed animation: `image` (frame 0) and every frame in ``Image/frames``, with
    /// their durations and the loop count kept. The default transforms each frame on its own;
    /// a transformer whose result for one frame depends on the others (a trim that cuts every
    /// frame by one rectangle) implements it. The manager calls it for animated images when
    /// ``ImageOptions/transformAnimatedImage`` is set.
    func transformAnimation(_ image: Image) throws(ImageKernelError) -> Image
}

extension ImageTransformer {
    public func transformAnimation(_ image: Image) throws(ImageKernelError) -> Image {
        var output = try transform(image)
        output.frames = try image.frames.map { frame throws(ImageKernelError) in
            ImageFrame(image: try transform(frame.image), duration: frame.duration)
        }
        output.duration = image.duration
        output.loopCount = image.loopCount
        return output
    }
}

/// Several transformers applied in order; its key joins theirs with `-`.
public struct TransformerChain: ImageTransformer {
    public let transformers: [any ImageTransformer]
    public init(_ transformers: [any ImageTransformer]) { self.transformers = transformers }
    public var key: String { transformers.map(\.key).joined(separator: "-") }
    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        var current = image
        for transformer in transformers { current = try transformer.transform(current) }
        return current
    }
    public func transformAnimation(_ image: Image) throws(ImageKernelError) -> Image {
        var current = image
        for transformer in transformers { current = try transformer.transformAnimation(current) }
        return current
    }
}

/// A transformer made from a closure and a key.
public struct ClosureTransformer: ImageTransformer {
    public let key: String
    private let body: @Sendable (Image) throws(ImageKernelError) -> Image
    public init(key: String, _ body: @escaping @Sendable (Image) throws(ImageKernelError) -> Image) {
        self.key = key
        self.body = body
    }
    public func transform(_ image: Image) throws(ImageKernelError) -> Image { try body(image) }
}
