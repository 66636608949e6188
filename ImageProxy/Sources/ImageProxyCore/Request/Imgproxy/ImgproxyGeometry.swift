import Foundation

/// The sizes imgproxy's processing computes for an image (its `CalcParams`: `calcScale`,
/// `calcSizes`, `limitScale`), from the image's size after rotation: the crop before scaling,
/// the scale, the crop to the result, the extended canvas and the padding, each rounded as
/// imgproxy rounds it. Pure arithmetic, so its tables are checked without a render.
public struct ImgproxyGeometry: Sendable, Equatable {
    /// The size the `crop` option cuts from the source (0: no crop on that side).
    public var cropWidth = 0, cropHeight = 0
    /// Scale factors of the resize.
    public var widthScale = 1.0, heightScale = 1.0
    /// The factor applied to `dpr`-scaled sizes (padding, offsets).
    public var dprScale = 1.0
    /// The box asked for, times dpr and zoom.
    public var targetWidth = 0, targetHeight = 0
    /// The image's size after the resize.
    public var scaledWidth = 0, scaledHeight = 0
    /// The crop to the result after the resize (0: none on that side).
    public var resultCropWidth = 0, resultCropHeight = 0
    /// The canvas of `extend_aspect_ratio` (0: none).
    public var aspectWidth = 0, aspectHeight = 0

    /// The geometry for an image of `width` x `height` (after rotation); `isVector` lets vector
    /// sources grow whatever `enlarge` says, as imgproxy draws them at the size asked.
    public init(width: Int, height: Int, options o: ImgproxyOptions, isVector: Bool = false) {
        cropWidth = Self.cropSize(width, o.cropWidth)
        cropHeight = Self.cropSize(height, o.cropHeight)
        let toScaleWidth = Self.minNonZero(cropWidth, width), toScaleHeight = Self.minNonZero(cropHeight, height)
        calcScale(toScaleWidth, toScaleHeight, o, isVector: isVector)
        calcSizes(toScaleWidth, toScaleHeight, o)
        limitScale(toScaleWidth, toScaleHeight, o)
    }

    /// imgproxy's `imath` rounding: half away from zero (`Round`, `Scale`) or half to even
    /// (`RoundToEven`, `ScaleToEven`, for padding and offsets); a zero size stays zero.
    /// Sizes saturate at ±``sizeBound`` (and a NaN is 0): a URL's `w:9223372036854775807` or
    /// `dpr:1e300` gives a size the transformers refuse as too large, never an overflow trap.
    static func round(_ value: Double) -> Int { saturated(value.rounded(.toNearestOrAwayFromZero)) }
    static func roundToEven(_ value: Double) -> Int { saturated(value.rounded(.toNearestOrEven)) }
    /// Far past any side a transformer makes (`TransformLimits.maxSide`), and small enough that
    /// sums and products of a few sizes stay far inside `Int`.
    static let sizeBound = 1 << 30
    static func saturated(_ value: Double) -> Int {
        guard !value.isNaN else { return 0 }
        return Int(min(Double(sizeBound), max(-Double(sizeBound), value)))
    }
    public static func scale(_ a: Int, _ factor: Double) -> Int { a == 0 ? 0 : round(Double(a) * factor) }
    public static func scaleToEven(_ a: Int, _ factor: Double) -> Int { a == 0 ? 0 : roundToEven(Double(a) * factor) }
    /// The smaller of two sizes where 0 means none.
    public static func minNonZero(_ a: Int, _ b: Int) -> Int { a == 0 ? b : b == 0 ? a : min(a, b) }

    static func cropSize(_ original: Int, _ crop: Double) -> Int {
        crop == 0 ? 0 : crop >= 1 ? saturated(crop) : max(1, scale(original, crop))
    }

    private mutating func calcScale(_ width: Int, _ height: Int, _ o: ImgproxyOptions, isVector: Bool) {
        var wshrink = 1.0, hshrink = 1.0
        let srcW = Double(width), srcH = Double(height)
        let dstW = o.width == 0 ? srcW : Double(o.width), dstH = o.height == 0 ? srcH : Double(o.height)
        if dstW != srcW { wshrink = srcW / dstW }
        if dstH != srcH { hshrink = srcH / dstH }
        if wshrink != 1 || hshrink != 1 {
            var type = o.resizingType
            if type == .auto {
                let srcD = srcW - srcH, dstD = dstW - dstH
                type = (srcD >= 0 && dstD >= 0) || (srcD < 0 && dstD < 0) ? .fill : .fit
            }
            if o.width == 0 && type != .force {
                wshrink = hshrink
            } else if o.height == 0 && type != .force {
                hshrink = wshrink
            } else if type == .fit {
                wshrink = max(wshrink, hshrink)
                hshrink = wshrink
            } else if type == .fill || type == .fillDown {
                wshrink = min(wshrink, hshrink)
                hshrink = wshrink
            }
        }
        wshrink /= o.zoomWidth
        hshrink /= o.zoomHeight
        dprScale = o.dpr
        if !o.enlarge && !isVector {
            let minShrink = min(wshrink, hshrink)
            if minShrink < 1 {
                wshrink /= minShrink
                hshrink /= minShrink
                if !o.extend.enabled { dprScale /= minShrink }
            }
            dprScale = min(dprScale, min(wshrink, hshrink))
        }
        if o.minWidth > 0, srcW / Double(o.minWidth) < wshrink {
            let minShrink = srcW / Double(o.minWidth)
            hshrink /= wshrink / minShrink
            wshrink = minShrink
        }
        if o.minHeight > 0, srcH / Double(o.minHeight) < hshrink {
            let minShrink = srcH / Double(o.minHeight)
            wshrink /= hshrink / minShrink
            hshrink = minShrink
        }
        wshrink /= dprScale
        hshrink /= dprScale
        wshrink = min(wshrink, srcW)
        hshrink = min(hshrink, srcH)
        widthScale = 1 / wshrink
        heightScale = 1 / hshrink
    }

    private mutating func calcSizes(_ width: Int, _ height: Int, _ o: ImgproxyOptions) {
        targetWidth = Self.scale(o.width, dprScale * o.zoomWidth)
        targetHeight = Self.scale(o.height, dprScale * o.zoomHeight)
        scaledWidth = Self.scale(width, widthScale)
        scaledHeight = Self.scale(height, heightScale)
        resultCropWidth = targetWidth
        resultCropHeight = targetHeight
        if o.resizingType == .fillDown && !o.enlarge {
            let diffW = Double(targetWidth) / Double(scaledWidth), diffH = Double(targetHeight) / Double(scaledHeight)
            if diffW > diffH && diffW > 1 {
                resultCropHeight = Self.scale(scaledWidth, Double(targetHeight) / Double(targetWidth))
                resultCropWidth = scaledWidth
            } else if diffH > diffW && diffH > 1 {
                resultCropWidth = Self.scale(scaledHeight, Double(targetWidth) / Double(targetHeight))
                resultCropHeight = scaledHeight
            }
        }
        aspectWidth = 0
        aspectHeight = 0
        if o.extendAspectRatio.enabled && targetWidth > 0 && targetHeight > 0 {
            let outWidth = Self.minNonZero(scaledWidth, resultCropWidth), outHeight = Self.minNonZero(scaledHeight, resultCropHeight)
            let diffW = Double(targetWidth) / Double(outWidth), diffH = Double(targetHeight) / Double(outHeight)
            if diffH > diffW {
                aspectHeight = Self.scale(outWidth, Double(targetHeight) / Double(targetWidth))
                aspectWidth = outWidth
            } else if diffW > diffH {
                aspectWidth = Self.scale(outHeight, Double(targetWidth) / Double(targetHeight))
                aspectHeight = outHeight
            }
        }
    }

    private mutating func limitScale(_ width: Int, _ height: Int, _ o: ImgproxyOptions) {
        guard o.maxResultDimension > 0 else { return }
        var outWidth = Self.minNonZero(scaledWidth, resultCropWidth), outHeight = Self.minNonZero(scaledHeight, resultCropHeight)
        if o.extend.enabled {
            outWidth = max(outWidth, targetWidth)
            outHeight = max(outHeight, targetHeight)
        } else if o.extendAspectRatio.enabled {
            outWidth = max(outWidth, aspectWidth)
            outHeight = max(outHeight, aspectHeight)
        }
        outWidth += Self.scaleToEven(o.padding.left, dprScale) + Self.scaleToEven(o.padding.right, dprScale)
        outHeight += Self.scaleToEven(o.padding.top, dprScale) + Self.scaleToEven(o.padding.bottom, dprScale)
        guard outWidth > o.maxResultDimension || outHeight > o.maxResultDimension else { return }
        let downScale = Double(o.maxResultDimension) / Double(max(outWidth, outHeight))
        widthScale = max(widthScale * downScale, 1 / Double(width))
        heightScale = max(heightScale * downScale, 1 / Double(height))
        dprScale *= downScale
        calcSizes(width, height, o)
    }

    /// imgproxy's `calcPosition`: where an `inner` box goes in an `outer` one by `gravity`, its
    /// offsets (pixels times `dpr` when at least 1, else fractions) or focus point, kept inside
    /// unless `overflows` (a watermark's place may lie partly outside, as imgproxy allows it).
    static func position(
        outer: (width: Int, height: Int), inner: (width: Int, height: Int), gravity: ImgproxyOptions.GravityOption, dpr: Double,
        overflows: Bool = false
    ) -> (x: Int, y: Int) {
        var left: Int, top: Int
        if gravity.kind == .fp {
            left = scaleToEven(outer.width, gravity.x) - inner.width / 2
            top = scaleToEven(outer.height, gravity.y) - inner.height / 2
        } else {
            let offX = abs(gravity.x) >= 1 ? roundToEven(gravity.x * dpr) : scaleToEven(outer.width, gravity.x)
            let offY = abs(gravity.y) >= 1 ? roundToEven(gravity.y * dpr) : scaleToEven(outer.height, gravity.y)
            left = roundToEven(Double(outer.width - inner.width + 1) / 2) + offX
            top = roundToEven(Double(outer.height - inner.height + 1) / 2) + offY
            switch gravity.kind {
            case .no, .noea, .nowe: top = offY
            case .so, .soea, .sowe: top = outer.height - inner.height - offY
            default: break
            }
            switch gravity.kind {
            case .ea, .noea, .soea: left = outer.width - inner.width - offX
            case .we, .nowe, .sowe: left = offX
            default: break
            }
        }
        if overflows { return (left, top) }
        return (max(0, min(left, outer.width - inner.width)), max(0, min(top, outer.height - inner.height)))
    }
}
