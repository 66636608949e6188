internal import CJPEG

/// What a JPEG frame header declares.
struct JPEGHeader: Sendable, Equatable {
    enum ColorSpace: Sendable { case unknown, gray, rgb, yCbCr, cmyk, ycck }

    var width: Int
    var height: Int
    var components: Int
    var colorSpace: ColorSpace
    var isProgressive: Bool
    var hasMultipleScans: Bool
    var isArithmetic: Bool
    /// An Adobe APP14 marker: CMYK and YCCK samples are stored inverted.
    var isAdobeInverted: Bool

    /// Declared pixel count.
    var pixelCount: Int { width * height }
}

extension JPEGHeader {
    init(_ raw: cjpeg_header) {
        width = Int(raw.width)
        height = Int(raw.height)
        components = Int(raw.components)
        switch UInt32(raw.color_space) {
        case CJPEG_SPACE_GRAY.rawValue: colorSpace = .gray
        case CJPEG_SPACE_RGB.rawValue: colorSpace = .rgb
        case CJPEG_SPACE_YCBCR.rawValue: colorSpace = .yCbCr
        case CJPEG_SPACE_CMYK.rawValue: colorSpace = .cmyk
        case CJPEG_SPACE_YCCK.rawValue: colorSpace = .ycck
        default: colorSpace = .unknown
        }
        isProgressive = raw.progressive != 0
        hasMultipleScans = raw.multi_scan != 0
        isArithmetic = raw.arithmetic != 0
        isAdobeInverted = raw.adobe_inverted != 0
    }
}
