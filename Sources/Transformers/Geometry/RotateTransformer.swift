import Foundation
import ImageKernel

/// Rotates clockwise by any angle in degrees.
///
/// Multiples of 90° move pixels exactly (no resampling). Other angles enlarge the canvas to the
/// rotated image's bounding box, sample bilinearly (premultiplied) and fill the corners with
/// ``background``; an image without alpha gains alpha when the background is not opaque.
public struct RotateTransformer: ImageTransformer {
    /// The angle, normalised to `0 ..< 360`.
    public let degrees: Double
    public let background: RGBAColor

    public init(degrees: Double, background: RGBAColor = .transparent) {
        let turned = degrees.truncatingRemainder(dividingBy: 360)
        self.degrees = turned < 0 ? turned + 360 : turned
        self.background = background
    }

    /// Whether the angle is a multiple of 90°, which rotates exactly.
    public var isExact: Bool { degrees.truncatingRemainder(dividingBy: 90) == 0 }

    /// `rotate:DEG`, plus `:rrggbbaa` for angles that are not multiples of 90°.
    public var key: String {
        let angle = SpecNumber.format(degrees)
        return isExact ? "rotate:\(angle)" : "rotate:\(angle):\(background)"
    }

    public func transform(_ image: Image) throws(ImageKernelError) -> Image {
        try image.checkedForTransform(by: key)
        switch degrees {
        case 0: return image
        case 90: return try image.remapped(.upright(.right, width: image.width, height: image.height))
        case 180: return try image.remapped(.upright(.down, width: image.width, height: image.height))
        case 270: return try image.remapped(.upright(.left, width: image.width, height: image.height))
        default: return try rotatedFreely(image)
        }
    }

    private func rotatedFreely(_ image: Image) throws(ImageKernelError) -> Image {
        let radians = degrees * .pi / 180
        let c = cos(radians), s = sin(radians)
        let w = Double(image.width), h = Double(image.height)
        let outWidth = max(1, Int((abs(w * c) + abs(h * s) - 1e-6).rounded(.up)))
        let outHeight = max(1, Int((abs(w * s) + abs(h * c) - 1e-6).rounded(.up)))
        try TransformLimits.check(width: outWidth, height: outHeight, what: "rotated image")
        let format = background.alpha == 255 ? image.pixelFormat : image.withAlphaFormat
        let input = WorkingRowCodec(image.pixelFormat, premultiplying: true)
        let output = WorkingRowCodec(format, premultiplying: true)
        let fill = background.working(maxValue: output.maxValue, gray: format.layout == .gray || format.layout == .grayAlpha, premultiplied: true)
        let width = image.width, height = image.height
        return try image.withWorkingPlane(codec: input) { plane throws(ImageKernelError) in
            try Image.rendering(like: image, width: outWidth, height: outHeight, format: format, codec: output, work: outWidth * outHeight * 16) { y, row in
                // Inverse map: output pixel centre → source coordinates, then bilinear between the
                // four nearest source pixel centres; taps outside the source read the background.
                let oy = Double(y) + 0.5 - Double(outHeight) / 2
                for x in 0..<outWidth {
                    let ox = Double(x) + 0.5 - Double(outWidth) / 2
                    let sx = ox * c + oy * s + w / 2 - 0.5
                    let sy = -ox * s + oy * c + h / 2 - 0.5
                    let x0 = Int(sx.rounded(.down)), y0 = Int(sy.rounded(.down))
                    let fx = Float(sx - Double(x0)), fy = Float(sy - Double(y0))
                    @inline(__always) func tap(_ px: Int, _ py: Int) -> WorkingPixel {
                        px >= 0 && py >= 0 && px < width && py < height ? plane[py * width + px] : fill
                    }
                    let top = tap(x0, y0) * (1 - fx) + tap(x0 + 1, y0) * fx
                    let bottom = tap(x0, y0 + 1) * (1 - fx) + tap(x0 + 1, y0 + 1) * fx
                    row[x] = top * (1 - fy) + bottom * fy
                }
            }
        }
    }
}
