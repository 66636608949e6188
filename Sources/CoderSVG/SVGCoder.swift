import Foundation
import ImageKernel

/// Renders SVG with librsvg 2.54 and cairo, at the size asked, without ever reaching the network
/// or the file system.
///
/// Register it with a registry to use it through the kernel:
/// ```swift
/// let coders = CoderRegistry()
/// SVGCoder.register(into: coders)  // same as coders.register(SVGCoder())
/// ```
///
/// ## Size
/// The document renders at its intrinsic size: the root's `width` and `height` at 96 dpi
/// (rounded up to whole pixels), else its viewBox's size in user units, else
/// ``defaultSize`` × ``defaultSize`` (content at one user unit a pixel). The root's viewBox and
/// `preserveAspectRatio` are honoured inside that size, as librsvg's `rsvg-convert` does.
///
/// A decode for a thumbnail (``DecodeOptions/thumbnailPixelSize``) draws the document at that size
/// directly — the vector is scaled, never a large raster — to ``PixelSize/thumbnail(of:fitting:)``
/// of the intrinsic size (never larger than it, as every coder of the kernel). A decode for a
/// resize (``DecodeOptions/shrinkOnLoad``, which the ``ImageManager`` passes from its transformer's
/// ``ImageTransformer/vectorRenderBox``) draws the document at the resize's box, smaller *or
/// larger* than its own size: a 200×100 icon resized to fit 800×800 renders at 800×400, sharp,
/// as imgproxy renders vector sources whatever `enlarge` says. The image's
/// ``Image/MetadataKey/thumbnailSource`` note is then `scaled-decode`.
///
/// The result is `rgba8` with straight alpha: cairo's premultiplied pixels are un-premultiplied
/// as cairo's PNG writer does, so a decode equals `rsvg-convert`'s PNG pixel for pixel.
///
/// ## Limits
/// - **Pixels**: the canvas (the size the decode renders at, not the intrinsic size: a
///   100000×100000 document renders as a 256 px thumbnail) is checked against
///   ``DecodeOptions/pixelLimit`` before any buffer is allocated, and against cairo's 32767 px a
///   side. Over the limit it is `pixelLimitExceeded`, or with
///   ``DecodeOptions/scaleDownLargeImages`` (within ``DecodeOptions/effectiveScaleDownSourcePixelLimit``,
///   the kernel's rule) it renders scaled down to fit.
/// - **Time**: librsvg cannot be interrupted, so a document is priced before it is drawn (see
///   <doc:Security>): element instances after `<use>` and other references, offscreen layers
///   and filter primitives per canvas pixel. Over ``Limits/workBudget`` it is refused with
///   `tooLarge` without rendering.
/// - **XML**: libxml2's own limits stand (no `RSVG_HANDLE_FLAG_UNLIMITED`): entity amplification
///   ("billion laughs") and nesting deeper than 256 are refused (`tooLarge`), external entities
///   are never loaded.
///
/// ## Isolation
/// The document is parsed from memory with no base URL. librsvg 2.54 then resolves no reference
/// but `data:` URLs: external images, `<use>` of other files, XInclude, `<?xml-stylesheet?>` and
/// CSS `@import` by `http:`, `https:` or `file:` URL, or by relative path, are dropped before
/// any I/O (the element renders as if the reference were missing). librsvg 2.54 has no web
/// fonts; text uses the fonts fontconfig finds on the machine.
///
/// Errors are ``ImageKernelError``s with plugin `"CoderSVG"`: `corruptData` (not well-formed
/// XML, no `<svg>` root, an empty size), `truncated`, `unsupported` (constructs the budget cannot
/// price, see <doc:Security>), `tooLarge` and `pixelLimitExceeded`.
///
/// SVG is decode-only: ``canEncode(_:)`` is false for every format.
///
/// An `SVGCoder` holds no mutable state; one value may be used from any number of threads at once
/// (each decode has its own librsvg handle).
public struct SVGCoder: ImageCoder {
    /// `"CoderSVG"`, the plugin name in errors and logs.
    public let name = "CoderSVG"
    /// What a decode may cost.
    public let limits: Limits

    /// The side, in pixels, of a document that gives neither width and height nor a viewBox.
    public static let defaultSize = 512.0

    /// What rendering one document may cost.
    public struct Limits: Sendable, Hashable {
        /// The most estimated work a render may take, in units of about a nanosecond of one core
        /// (see <doc:Security>). Default 500 million: about half a second on a 2020s server core
        /// for the most expensive document the estimate lets through, usually far less.
        public var workBudget: Double

        /// Limits with the given budget.
        public init(workBudget: Double = 500_000_000) {
            self.workBudget = workBudget
        }
    }

    /// A coder with the given limits.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Registers an `SVGCoder` in front of the registry's other coders.
    @discardableResult
    public static func register(into registry: CoderRegistry, _ coder: SVGCoder = SVGCoder()) -> RegistrationToken {
        registry.register(coder)
    }

    /// True when the bytes hold an `<svg>` document element after an optional XML prolog (byte
    /// order mark, XML declaration, comments, DOCTYPE); see ``ImageFormat/sniff(_:)-(Data)``.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.sniff(data) == .svg
    }

    /// The canvas a decode at the intrinsic size renders on (the root's width and height at 96
    /// dpi rounded up, else the viewBox's, else ``defaultSize``), from librsvg's parse alone: no
    /// render. For callers that choose a render box from the document's own size.
    /// - Throws: what ``decode(_:options:)`` throws before it renders.
    public func intrinsicCanvas(of data: Data) throws(ImageKernelError) -> PixelSize {
        let coder = name
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageKernelError) -> PixelSize in try SVGDecoding.intrinsicCanvas(bytes, coder: coder) }
        }
        return try result.get()
    }

    /// Renders the document; see the type's documentation for the size and the limits.
    public func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        let (coder, limits) = (name, limits)
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageKernelError) -> Image in try SVGDecoding.decode(bytes, options: options, limits: limits, coder: coder) }
        }
        return try result.get()
    }
}
