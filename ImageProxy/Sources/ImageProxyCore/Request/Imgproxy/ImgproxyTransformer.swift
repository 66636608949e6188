import Foundation
import ImageKernel
import Transformers

/// imgproxy's processing pipeline on an upright image, with the kernel's transformers: trim,
/// rotate and flip, crop, scale, crop to the result, filters (blur, sharpen, pixelate), extend,
/// extend to the aspect ratio, padding, background, watermark. The sizes come from
/// ``ImgproxyGeometry``, computed from the image this step receives (after trimming), so they
/// equal imgproxy's for any source.
///
/// Rotation and flips run first here (imgproxy runs them after scaling, with sizes already
/// swapped): the sizes are the same, and the crop gravity needs no rotating.
public struct ImgproxyTransformer: ImageTransformer {
    public let options: ImgproxyOptions
    /// The image `watermark` places (the service's `--watermark`); nil ignores the option.
    public let watermark: Image?

    public init(options: ImgproxyOptions, watermark: Image? = nil) {
        self.options = options
        self.watermark = watermark
    }

    public var key: String { "imgproxy:" + options.key }

    public func transform(_ input: Image) throws(ImageKernelError) -> Image {
        let o = options
        var image = input
        // A vector source drawn for a trim arrives cut to the trim's box (``vectorDrawing``).
        if let threshold = o.trimThreshold, input.decoderNotes[Self.vectorTrimmedNote] == nil {
            image = try TrimTransformer(threshold: threshold, color: o.trimColor).transform(image)
        }
        let turn = ((o.rotate % 360) + 360) % 360
        if turn != 0 { image = try RotateTransformer(degrees: Double(turn)).transform(image) }
        if o.flipHorizontal { image = try FlipTransformer(.horizontal).transform(image) }
        if o.flipVertical { image = try FlipTransformer(.vertical).transform(image) }

        // A trimmed vector source is a raster from then on (imgproxy drops its vector data there).
        let isVector = input.sourceFormat == .svg && o.trimThreshold == nil
        var geometry: ImgproxyGeometry
        var cropGravity = o.cropGravity ?? o.gravity
        if input.sourceFormat == .svg, let source = Self.vectorSourceSize(of: input) {
            // Drawn at imgproxy's load scale: its geometry on the document's own size, then
            // carried over to the drawing as imgproxy's scaleOnLoad does.
            let (sourceWidth, sourceHeight) = turn % 180 == 90 ? (source.height, source.width) : (source.width, source.height)
            geometry = ImgproxyGeometry(width: sourceWidth, height: sourceHeight, options: o, isVector: isVector)
            cropGravity = geometry.scaleOnLoad(
                loadedWidth: image.width, loadedHeight: image.height, sourceWidth: sourceWidth, sourceHeight: sourceHeight, cropGravity: cropGravity)
        } else {
            geometry = ImgproxyGeometry(width: image.width, height: image.height, options: o, isVector: isVector)
        }
        image = try crop(image, width: geometry.cropWidth, height: geometry.cropHeight, gravity: cropGravity, dpr: 1)
        if geometry.scaledWidth != image.width || geometry.scaledHeight != image.height {
            image = try ResizeTransformer(.stretch, width: max(1, geometry.scaledWidth), height: max(1, geometry.scaledHeight), allowsEnlarging: true)
                .transform(image)
        }
        image = try crop(image, width: geometry.resultCropWidth, height: geometry.resultCropHeight, gravity: o.gravity, dpr: geometry.dprScale)
        if o.blur > 0 { image = try GaussianBlurTransformer(sigma: min(o.blur, GaussianBlurTransformer.maxSigma)).transform(image) }
        if o.sharpen > 0 { image = try SharpenTransformer(sigma: min(o.sharpen, GaussianBlurTransformer.maxSigma)).transform(image) }
        if o.pixelate > 1 { image = try PixelateTransformer(size: o.pixelate).transform(image) }
        if o.extend.enabled {
            image = try embed(image, width: geometry.targetWidth, height: geometry.targetHeight, gravity: o.extend.gravity, dpr: geometry.dprScale)
        }
        if o.extendAspectRatio.enabled, geometry.aspectWidth > 0, geometry.aspectHeight > 0 {
            image = try embed(image, width: geometry.aspectWidth, height: geometry.aspectHeight, gravity: o.extendAspectRatio.gravity, dpr: geometry.dprScale)
        }
        if o.padding != (0, 0, 0, 0) {
            let scale = { (side: Int) in ImgproxyGeometry.scaleToEven(side, geometry.dprScale) }
            image = try PadTransformer(top: scale(o.padding.top), right: scale(o.padding.right), bottom: scale(o.padding.bottom), left: scale(o.padding.left))
                .transform(image)
        }
        if let background = o.background { image = try BackgroundTransformer(background).transform(image) }
        if let watermark, o.watermarkOpacity > 0 {
            // A coloured mark turns a gray image coloured, at the image's depth (imgproxy's compositing space).
            let colored = watermark.pixelFormat.layout == .rgb || watermark.pixelFormat.layout == .rgba
            image = try placeWatermark(watermark, on: colored ? image.promotedToColor() : image, dpr: geometry.dprScale)
        }
        return image
    }

    /// imgproxy's `cropImage`: nothing for a zero size or one the image already fits, the smart
    /// window for `sm`, else ``ImgproxyGeometry/position(outer:inner:gravity:dpr:)``.
    private func crop(_ image: Image, width: Int, height: Int, gravity: ImgproxyOptions.GravityOption, dpr: Double) throws(ImageKernelError) -> Image {
        guard width != 0 || height != 0 else { return image }
        let w = ImgproxyGeometry.minNonZero(width, image.width), h = ImgproxyGeometry.minNonZero(height, image.height)
        guard w < image.width || h < image.height else { return image }
        let w1 = min(w, image.width), h1 = min(h, image.height)
        if gravity.kind == .sm { return try CropTransformer(.placed(width: w1, height: h1, placement: .smart)).transform(image) }
        let origin = ImgproxyGeometry.position(outer: (image.width, image.height), inner: (w1, h1), gravity: gravity, dpr: dpr)
        return try CropTransformer(.rect(x: origin.x, y: origin.y, width: w1, height: h1)).transform(image)
    }

    /// imgproxy's `extendImage`: the image on a canvas of at least `width` x `height`.
    private func embed(_ image: Image, width: Int, height: Int, gravity: ImgproxyOptions.GravityOption, dpr: Double) throws(ImageKernelError) -> Image {
        guard width > image.width || height > image.height else { return image }
        let canvasWidth = width <= 0 ? image.width : max(width, image.width), canvasHeight = height <= 0 ? image.height : max(height, image.height)
        let origin = ImgproxyGeometry.position(outer: (canvasWidth, canvasHeight), inner: (image.width, image.height), gravity: gravity, dpr: dpr)
        return try PadTransformer(
            top: origin.y, right: canvasWidth - image.width - origin.x, bottom: canvasHeight - image.height - origin.y, left: origin.x
        ).transform(image)
    }

    static func gravity(_ kind: ImgproxyOptions.GravityOption.Kind) -> Gravity {
        switch kind {
        case .no: .north
        case .so: .south
        case .ea: .east
        case .we: .west
        case .noea: .northEast
        case .nowe: .northWest
        case .soea: .southEast
        case .sowe: .southWest
        default: .centre
        }
    }
}

extension ImgproxyTransformer {
    /// The single resize that gives this step's result (same size) on an upright image of `width`
    /// x `height`, when the options ask for a resize and nothing else (centred, no crop, filter,
    /// canvas or padding): the render then takes the planar JPEG path as the native grammar's
    /// resizes do. Nil otherwise, or when the kernel's resize would not land on imgproxy's size.
    public func equivalentResize(width: Int, height: Int) -> ResizeTransformer? {
        let o = options
        guard o.trimThreshold == nil, o.rotate % 360 == 0, !o.flipHorizontal, !o.flipVertical, o.cropWidth == 0, o.cropHeight == 0,
              o.blur == 0, o.sharpen == 0, o.pixelate <= 1, !o.extend.enabled, !o.extendAspectRatio.enabled, o.padding == (0, 0, 0, 0),
              o.background == nil, watermark == nil || o.watermarkOpacity == 0, o.gravity == .init(.ce)
        else { return nil }
        let g = ImgproxyGeometry(width: width, height: height, options: o)
        let finalWidth = g.resultCropWidth == 0 ? g.scaledWidth : min(g.resultCropWidth, g.scaledWidth)
        let finalHeight = g.resultCropHeight == 0 ? g.scaledHeight : min(g.resultCropHeight, g.scaledHeight)
        guard finalWidth > 0, finalHeight > 0, finalWidth != width || finalHeight != height else { return nil }
        if finalWidth == g.scaledWidth && finalHeight == g.scaledHeight {
            return ResizeTransformer(.stretch, width: finalWidth, height: finalHeight, allowsEnlarging: true)
        }
        // A centred crop of the scaled image: the kernel's fill of the final box scales by the
        // uncropped side, which must give imgproxy's scaled size on that side.
        guard finalWidth == g.scaledWidth || finalHeight == g.scaledHeight else { return nil }
        let scale = max(Double(finalWidth) / Double(width), Double(finalHeight) / Double(height))
        let outWidth = min(finalWidth, max(1, Int((Double(width) * scale).rounded())))
        let outHeight = min(finalHeight, max(1, Int((Double(height) * scale).rounded())))
        guard outWidth == finalWidth, outHeight == finalHeight,
              Int((Double(width) * scale).rounded()) == g.scaledWidth, Int((Double(height) * scale).rounded()) == g.scaledHeight
        else { return nil }
        return ResizeTransformer(.fill, width: finalWidth, height: finalHeight, allowsEnlarging: true)
    }

    /// ``equivalentResize(width:height:)`` for a spec that is one imgproxy step and a JPEG
    /// source, from the size its header declares (the planes are only taken for an upright JPEG,
    /// whose stored size is its size).
    static func planarResize(of spec: TransformSpec?, jpeg data: Data) -> ResizeTransformer? {
        guard let steps = spec?.steps, steps.count == 1, let step = steps[0] as? ImgproxyTransformer,
              let size = SourceDimensions.size(of: data, format: .jpeg)
        else { return nil }
        return step.equivalentResize(width: size.width, height: size.height)
    }
}
