import ImageKernel

/// A chain of transformers named in text, imgproxy-like: steps separated by `/`, each
/// `name:arg:arg…`, e.g. `orient/resize:fill:300:200/round:12`.
///
/// | step | arguments |
/// |---|---|
/// | `resize` | `fit`, `fill` or `stretch`, `W`, `H`, then optionally a filter (`box`/`area`, `bilinear`, `bicubic`, `lanczos3`), a gravity (`fill` only) and `enlarge` |
/// | `crop` | `W:H[:gravity]` or `X:Y:W:H` |
/// | `rotate` | `DEG[:RRGGBBAA]` (clockwise; the colour fills the corners of angles that are not multiples of 90) |
/// | `flip` | `h` or `v` |
/// | `orient`, `circle`, `gray` | none |
/// | `round` | `R` (corner radius in pixels) |
/// | `blur`, `sharpen` | `SIGMA` in pixels (`sharpen` takes an optional amount) |
/// | `tint` | `RRGGBBAA` |
/// | `pixelate` | `N` (block side in pixels) |
/// | `pad` | `T:R:B:L[:RRGGBBAA]` (borders in pixels; default transparent) |
/// | `extend` | `[GRAVITY]` (the box of the resize or crop before it) or `W:H[:GRAVITY[:RRGGBBAA]]` |
/// | `background` | `RRGGBB[AA]` (composites under the image; opaque flattens the alpha) |
/// | `trim` | `[THRESHOLD[:RRGGBB]]` (cuts borders of one colour; runs before the other steps) |
/// | `watermark` | `OPACITY[:GRAVITY\|re[:SCALE]]` (the image given to the parser; `re` tiles it; scale of the width) |
/// | `dpr` | `N` (multiplies the sizes of `resize`, `crop:W:H`, `pad` and `extend`; not in the key) |
///
/// The ``key`` is the normalised spec: names and values in one spelling, defaults written out
/// (`resize:fit:300:200` → `resize:fit:300:200:lanczos3`), so equal chains share cache entries and
/// parsing a key gives the same key back. A bad spec throws a ``TransformSpecError`` naming the step.
public struct TransformSpec: ImageTransformer {
    /// The steps, in order.
    public let steps: [any ImageTransformer]

    /// A chain of the given transformers.
    public init(steps: [any ImageTransformer]) { self.steps = steps }

    /// Parses `text`; `threadLimit` caps the threads of the resampling steps (0: every core);
    /// `watermark` is the image `watermark` steps composite (without one they are an error,
    /// ``TransformSpecError/Problem/noWatermark``).
    public init(parsing text: String, threadLimit: Int = 0, watermark: Image? = nil) throws(TransformSpecError) {
        var trimmed = Substring(text)
        while trimmed.first?.isWhitespace == true { trimmed.removeFirst() }
        while trimmed.last?.isWhitespace == true { trimmed.removeLast() }
        guard !trimmed.isEmpty else { throw TransformSpecError(stepIndex: 0, step: "", problem: .emptySpec) }
        let texts = trimmed.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // `dpr` steps scale the sizes of every step, before or after them: they are read first.
        var dpr = 1.0
        for (index, text) in texts.enumerated() {
            let parser = StepParser(index: index + 1, text: text, threadLimit: threadLimit)
            guard parser.isDPR else { continue }
            dpr *= try parser.ratio()
            guard dpr <= 8 else {
                throw TransformSpecError(stepIndex: index + 1, step: text, problem: .outOfRange(SpecNumber.format(dpr), allowed: "a dpr of at most 8 in all"))
            }
        }
        var steps: [any ImageTransformer] = []
        var box: (width: Int, height: Int)?
        for (index, text) in texts.enumerated() {
            var parser = StepParser(index: index + 1, text: text, threadLimit: threadLimit, box: box, dpr: dpr, watermark: watermark)
            if parser.isDPR { continue }
            let transformer = try parser.transformer()
            if let resize = transformer as? ResizeTransformer { box = (resize.width, resize.height) }
            if let crop = transformer as? CropTransformer, let size = crop.size { box = size }
            steps.append(transformer)
        }
        // Only dpr steps: nothing to scale, and no key that would parse again.
        guard !steps.isEmpty else { throw TransformSpecError(stepIndex: 0, step: "", problem: .emptySpec) }
        // A trim runs first, whatever its place: it removes borders of the source.
        self.steps = steps.filter { $0 is TrimTransformer } + steps.filter { !($0 is TrimTransformer) }
    }

    /// The normalised spec: the steps' keys joined by `/`.
    public var key: String { steps.map(\.key).joined(separator: "/") }

    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        var current = image
        for step in steps { current = try step.transform(current) }
        return current
    }

    /// Every frame of an animation through the chain: each step's
    /// ``ImageTransformer/transformAnimation(_:)`` in turn, so a `trim` cuts every frame by one
    /// rectangle.
    public func transformAnimation(_ image: Image) throws(ImageKernelError) -> Image {
        var current = image
        for step in steps { current = try step.transformAnimation(current) }
        return current
    }
}

extension TransformSpec {
    /// The colour of the last `background` step, for encoders of formats without alpha
    /// (``EncodeOptions/backgroundColor``), or nil.
    public var backgroundColor: RGBAColor? { steps.lazy.compactMap { ($0 as? BackgroundTransformer)?.color }.last }
}
