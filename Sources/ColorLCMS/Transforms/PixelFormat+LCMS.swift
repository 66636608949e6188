import CLCMS
import ImageKernel

extension PixelFormat {
    /// The lcms layout of these pixels; nil for premultiplied alpha (lcms converts straight colour).
    var lcmsPixels: clcms_pixels? {
        guard !isPremultiplied else { return nil }
        let wide = bitsPerComponent == 16
        switch layout {
        case .gray: return wide ? CLCMS_GRAY16 : CLCMS_GRAY8
        case .grayAlpha: return wide ? CLCMS_GRAYA16 : CLCMS_GRAYA8
        case .rgb: return wide ? CLCMS_RGB16 : CLCMS_RGB8
        case .rgba: return wide ? CLCMS_RGBA16 : CLCMS_RGBA8
        }
    }

    /// The same depth and alpha with RGB colour (gray → RGB, gray+alpha → RGBA).
    var asRGB: PixelFormat {
        switch layout {
        case .gray: PixelFormat(layout: .rgb, bitsPerComponent: bitsPerComponent)
        case .grayAlpha: PixelFormat(layout: .rgba, bitsPerComponent: bitsPerComponent)
        case .rgb, .rgba: self
        }
    }

    var isGray: Bool { layout == .gray || layout == .grayAlpha }
}
