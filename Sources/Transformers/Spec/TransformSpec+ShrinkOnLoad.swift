import ImageKernel

extension ResizeTransformer {
    /// What a decode feeding this resize may shrink to (``DecodeOptions/shrinkOnLoad``): `fit`
    /// needs one side at the box, `fill` and `stretch` both.
    public var shrinkOnLoad: ShrinkOnLoad {
        ShrinkOnLoad(width: width, height: height, mode: mode == .fit ? .fit : .fill)
    }

    /// The resize's box: a vector source is drawn at it (see ``ImageTransformer/vectorRenderBox``).
    public var vectorRenderBox: ShrinkOnLoad? { shrinkOnLoad }
}

extension TransformSpec {
    /// The shrink-on-load hint for a decode whose image this chain transforms next (after
    /// orienting it), or nil when the chain does not start by resizing.
    ///
    /// Steps that commute with scaling may come first (`orient`, `flip`, `gray`, `tint`); any
    /// other step before the resize (a crop in pixels, a rotation, a blur in pixels…) needs the
    /// full-size image, and then there is no hint.
    public var shrinkOnLoad: ShrinkOnLoad? {
        for step in steps {
            if let resize = step as? ResizeTransformer { return resize.shrinkOnLoad }
            guard step is OrientTransformer || step is FlipTransformer || step is GrayscaleTransformer || step is TintTransformer else { return nil }
        }
        return nil
    }

    /// ``shrinkOnLoad``: a vector source is drawn at the box of the resize the chain starts with
    /// (see ``ImageTransformer/vectorRenderBox``).
    public var vectorRenderBox: ShrinkOnLoad? { shrinkOnLoad }
}
