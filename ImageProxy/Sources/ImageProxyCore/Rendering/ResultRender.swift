import CoderSVG
import Foundation
import ImageKernel
import Transformers

/// The pure render of a result: bytes in, encoded bytes out, on whichever thread runs it.
enum ResultRender {
    /// Decodes, orients, transforms and encodes: the result's bytes and format, within the output
    /// byte limit. Runs on a render thread (or the request's, for a small source). An animated GIF
    /// or WebP source stays animated (every frame transformed, its first
    /// ``ProxyConfiguration/maxAnimationFrames`` kept) when the output format can carry it;
    /// otherwise its first frame is served as a still.
    static func render(
        _ data: Data, spec: TransformSpec?, choice: OutputChoice, encoder: OutputEncoder,
        coders: CoderRegistry, encodable: Set<ImageFormat>, limits: ProxyConfiguration, afterEncode: PlanarRender.AfterEncode? = nil
    ) throws(ProxyError) -> (Data, ImageFormat) {
        do throws(ImageKernelError) {
            let (encoded, format) = try encodedResult(
                data, spec: spec, choice: choice, encoder: encoder, coders: coders, encodable: encodable, limits: limits, afterEncode: afterEncode)
            guard encoded.count <= limits.maxOutputBytes else {
                throw ImageKernelError(stage: .encode, code: .tooLarge, message: "the result is \(encoded.count) bytes, more than \(limits.maxOutputBytes)")
            }
            return (encoded, format)
        } catch {
            throw ProxyError(error)
        }
    }

    /// The result's bytes and format: on the Y′CbCr planes for a JPEG-to-JPEG resize
    /// (``PlanarRender``), else decoded, transformed (every frame of a kept animation) and encoded.
    static func encodedResult(
        _ data: Data, spec: TransformSpec?, choice: OutputChoice, encoder: OutputEncoder,
        coders: CoderRegistry, encodable: Set<ImageFormat>, limits: ProxyConfiguration, afterEncode: PlanarRender.AfterEncode?
    ) throws(ImageKernelError) -> (Data, ImageFormat) {
        let sourceFormat = ImageFormat.sniff(data)
        if sourceFormat == .jpeg, encoder.output.maxBytes == nil, let resize = PlanarRender.resize(of: spec) ?? ImgproxyTransformer.planarResize(of: spec, jpeg: data),
           choice.resolve(sourceFormat: .jpeg, animated: false, hasAlpha: false, encodable: encodable) == .jpeg,
           let color = ColorPolicy.planarColor(data, limits: limits),
           let encoded = try PlanarRender.render(
               data, resize: resize, quality: encoder.quality(for: .jpeg), progressive: encoder.options(for: .jpeg).progressive, limits: limits,
               convertsColor: color == .convertPlanes, afterEncode: afterEncode)
        {
            return (encoded, .jpeg)
        }
        // After geometric steps the conversion meets the result's pixels only (as libvips'
        // thumbnail converts after shrinking); before any step that mixes in colours of its own.
        let convertsAfter = ColorPolicy.convertsAfter(spec)
        let source = HDRPolicy.settled(
            try decode(data, sourceFormat: sourceFormat, spec: spec, choice: choice, coders: coders, encodable: encodable, limits: limits),
            spec: spec, choice: choice, sourceFormat: sourceFormat, encodable: encodable)
        let decoded = convertsAfter ? source : ColorPolicy.apply(source, limits: limits)
        let animated = decoded.isAnimated
        let framesTogether = animated && spec?.steps.contains(where: { $0 is TrimTransformer }) == true
        var image: Image
        if framesTogether, let spec {
            image = try transformTrimmedAnimation(decoded, spec: spec, limits: limits)
        } else {
            image = try transform(decoded, spec: spec, limits: limits)
        }
        if animated && !framesTogether {
            try checkAnimation(decoded, frameSize: image, limits: limits)
            // `frames` are the frames after the first; the image itself is frame 0.
            image.frames = try decoded.frames.map { frame throws(ImageKernelError) in
                ImageFrame(image: try transform(frame.image, spec: spec, limits: limits), duration: frame.duration)
            }
            image.duration = decoded.duration
            image.loopCount = decoded.loopCount
        }
        let format = choice.resolve(sourceFormat: sourceFormat, animated: animated, hasAlpha: image.pixelFormat.hasAlpha, encodable: encodable)
        if !OutputChoice.animatable.contains(format) { image.frames = [] }
        if convertsAfter { image = ColorPolicy.apply(image, limits: limits) }
        image = HDRPolicy.fitted(image, to: format, preserving: HDRPolicy.preserves(spec))
        return (try encoder.encode(image, as: format, coders: coders, background: spec?.backgroundColor), format)
    }

    /// Every frame comes out at the first one's size: the whole animation must fit the output
    /// limit, checked before the other frames are transformed.
    private static func checkAnimation(_ decoded: Image, frameSize: Image, limits: ProxyConfiguration) throws(ImageKernelError) {
        let total = decoded.frameCount * frameSize.width * frameSize.height
        guard total <= limits.maxOutputPixels else {
            throw ImageKernelError(
                stage: .transform, code: .tooLarge,
                message: "the result would be \(decoded.frameCount) frames of \(frameSize.width)x\(frameSize.height), more than \(limits.maxOutputPixels) pixels in all")
        }
    }

    /// An animation through a spec with a `trim`: the frames go through the chain together
    /// (``TransformSpec/transformAnimation(_:)``), so every frame is cut by one rectangle, the
    /// union of theirs. The output limit is checked first on frame 0 through the spec without its
    /// trim: no trim makes a frame larger, so that bounds the result.
    private static func transformTrimmedAnimation(_ decoded: Image, spec: TransformSpec, limits: ProxyConfiguration) throws(ImageKernelError) -> Image {
        let untrimmed = TransformSpec(steps: spec.steps.filter { !($0 is TrimTransformer) })
        var bound = try orient(decoded, spec: spec)
        bound.frames = []
        try checkAnimation(decoded, frameSize: try untrimmed.transform(bound), limits: limits)
        var oriented = try orient(decoded, spec: spec)
        oriented.frames = try decoded.frames.map { frame throws(ImageKernelError) in ImageFrame(image: try orient(frame.image, spec: spec), duration: frame.duration) }
        oriented.duration = decoded.duration
        oriented.loopCount = decoded.loopCount
        let image = try spec.transformAnimation(oriented)
        try limits.checkOutput(width: image.width, height: image.height)
        return image
    }

    /// The source's pixels: the frames of an animation the result may keep (its first
    /// ``ProxyConfiguration/maxAnimationFrames``; see ``decodeAnimation(_:options:coders:limits:)``),
    /// and for a still a decode no larger than the spec's resize needs (shrink on load: a large
    /// JPEG decodes at 1/2, 1/4 or 1/8 scale).
    static func decode(
        _ data: Data, sourceFormat: ImageFormat, spec: TransformSpec?, choice: OutputChoice, coders: CoderRegistry, encodable: Set<ImageFormat>,
        limits: ProxyConfiguration
    ) throws(ImageKernelError) -> Image {
        var options = DecodeOptions(pixelLimit: limits.maxSourcePixels, firstFrameOnly: true, shrinkOnLoad: spec?.shrinkOnLoad)
        options.colorConverter = ColorPolicy.converter  // CMYK with a profile becomes RGB through it
        // imgproxy's enforce_thumbnail: a HEIF or AVIF source's stored thumbnail instead of its image.
        if let step = spec?.steps.first as? ImgproxyTransformer, step.options.enforceThumbnail == true { options.embeddedThumbnail = true }
        options.preserve16Bit = HDRPolicy.decodesDeep(spec, choice: choice, sourceFormat: sourceFormat, encodable: encodable)
        if limits.maxAnimationFrames > 1, OutputChoice.animatable.contains(sourceFormat), choice.mayAnimate(sourceFormat, encodable: encodable),
           let animation = try decodeAnimation(data, options: options, coders: coders, limits: limits)
        {
            return animation
        }
        // imgproxy's geometry for a vector source: the render box from the document's own size,
        // read from the parse, so the document is rendered once (twice for a trim that enlarges).
        if sourceFormat == .svg, let step = spec?.steps.first as? ImgproxyTransformer, spec?.steps.count == 1,
           let svg = coders.coder(forDecoding: data) as? SVGCoder {
            let canvas = try svg.intrinsicCanvas(of: data)
            let draw = { (options: DecodeOptions) throws(ImageKernelError) -> Image in try coders.decode(data, options: options) }
            if let drawing = try step.vectorDrawing(intrinsic: canvas, options: options, decode: draw) { return drawing }
        }
        return try coders.decode(data, options: options)
    }

    /// Orients and transforms one image (or frame), within the output pixel limit.
    static func transform(_ decoded: Image, spec: TransformSpec?, limits: ProxyConfiguration) throws(ImageKernelError) -> Image {
        var image = try orient(decoded, spec: spec)
        if let spec { image = try spec.transform(image) }
        try limits.checkOutput(width: image.width, height: image.height)
        return image
    }

    /// `image` upright by its EXIF orientation, or as stored for imgproxy's `auto_rotate:0`
    /// (the orientation then dropped, so no viewer turns it either: imgproxy's answer).
    static func orient(_ image: Image, spec: TransformSpec?) throws(ImageKernelError) -> Image {
        if let step = spec?.steps.first as? ImgproxyTransformer, !step.options.autoRotate {
            var stored = image
            stored.orientation = .up
            return stored
        }
        return try OrientTransformer().transform(image)
    }
}
