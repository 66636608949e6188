/// Turns one image into another (resize, crop, blur…).
///
/// ## Implementation requirements
/// - `Sendable` and pure: the same input and key give the same output; called from background
///   tasks, possibly concurrently.
/// - ``key`` is stable across runs and unique per configuration (`"resize(100x100,fill)"`): it is
///   appended to the cache key, so two transformers with the same key must produce the same image.
/// - Throw ``ImageKernelError`` (stage `.transform`) rather than crash on images you cannot handle.
/// - ``vectorRenderBox`` (optional, default nil) must describe what ``transform(_:)`` does to the
///   size first: the manager draws a vector source at that box, so a transformer that resizes later
///   (after a crop) returns nil.
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
    /// The box a vector source (SVG, PDF) is drawn at before this transformer runs, when the
    /// transformer starts by resizing: the ``ImageManager`` passes it to the vector coder as
    /// ``DecodeOptions/shrinkOnLoad``, so the document is rendered at the size the resize needs —
    /// larger than its own size too — instead of rasterised at its own size and scaled. Raster
    /// sources are decoded as before. Default: nil (draw at the document's own size).
    var vectorRenderBox: ShrinkOnLoad? { get }
}

extension ImageTransformer {
    public var vectorRenderBox: ShrinkOnLoad? { nil }

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
    /// The first transformer's: the one that meets the decoded image.
    public var vectorRenderBox: ShrinkOnLoad? { transformers.first?.vectorRenderBox }
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
