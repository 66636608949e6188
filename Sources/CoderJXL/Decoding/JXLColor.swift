import CJXL
import ImageKernel

/// The colour of the pixels libjxl returns (`JXL_COLOR_PROFILE_TARGET_DATA`): code points when
/// libjxl describes them with an encoded colour space CICP can name (sRGB, Display P3, BT.2020,
/// linear, PQ, HLG…), else the ICC profile libjxl gives for them (the file's own profile for
/// images stored in their original space, a synthesised one for custom primaries or gamma).
/// XYB images come out in the original colour space when that is an encoded one (most lossy
/// files: sRGB); libjxl 0.7 chooses linear sRGB for XYB files that carry an ICC profile.
enum JXLColor {
    static func read(_ decoder: OpaquePointer) -> (icc: [UInt8]?, cicp: CICP?) {
        var encoding = JxlColorEncoding()
        if JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &encoding) == JXL_DEC_SUCCESS,
            let cicp = cicp(encoding)
        {
            return (nil, cicp)
        }
        var size = 0
        guard JxlDecoderGetICCProfileSize(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS,
            size > 0, size <= 16 << 20
        else { return (nil, nil) }
        var icc = [UInt8](repeating: 0, count: size)
        guard JxlDecoderGetColorAsICCProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &icc, size) == JXL_DEC_SUCCESS else {
            return (nil, nil)
        }
        return (icc, nil)
    }

    /// The code points of an encoded colour space, or nil when CICP cannot name it exactly.
    /// libjxl's transfer-function values are CICP's own; primaries P3 become 12 (D65) or 11 (DCI).
    static func cicp(_ encoding: JxlColorEncoding) -> CICP? {
        let isGray = encoding.color_space == JXL_COLOR_SPACE_GRAY
        guard isGray || encoding.color_space == JXL_COLOR_SPACE_RGB else { return nil }
        let primaries: UInt8
        switch (isGray ? JXL_PRIMARIES_SRGB : encoding.primaries, encoding.white_point) {
        case (JXL_PRIMARIES_SRGB, JXL_WHITE_POINT_D65): primaries = 1
        case (JXL_PRIMARIES_2100, JXL_WHITE_POINT_D65): primaries = 9
        case (JXL_PRIMARIES_P3, JXL_WHITE_POINT_D65): primaries = 12
        case (JXL_PRIMARIES_P3, JXL_WHITE_POINT_DCI): primaries = 11
        default: return nil
        }
        let transfer: UInt8
        switch encoding.transfer_function {
        case JXL_TRANSFER_FUNCTION_709: transfer = 1
        case JXL_TRANSFER_FUNCTION_LINEAR: transfer = 8
        case JXL_TRANSFER_FUNCTION_SRGB: transfer = 13
        case JXL_TRANSFER_FUNCTION_PQ: transfer = 16
        case JXL_TRANSFER_FUNCTION_DCI: transfer = 17
        case JXL_TRANSFER_FUNCTION_HLG: transfer = 18
        default: return nil
        }
        return CICP(colourPrimaries: primaries, transferCharacteristics: transfer, matrixCoefficients: 0, fullRange: true)
    }

    /// The encoded colour space for code points libjxl can write, or nil (then sRGB is written).
    static func encoding(_ cicp: CICP, gray: Bool) -> JxlColorEncoding? {
        guard cicp.matrixCoefficients == 0, cicp.fullRange else { return nil }
        var encoding = JxlColorEncoding()
        JxlColorEncodingSetToSRGB(&encoding, gray ? 1 : 0)
        switch cicp.colourPrimaries {
        case 1: encoding.primaries = JXL_PRIMARIES_SRGB
        case 9: encoding.primaries = JXL_PRIMARIES_2100
        case 12: encoding.primaries = JXL_PRIMARIES_P3
        case 11: (encoding.primaries, encoding.white_point) = (JXL_PRIMARIES_P3, JXL_WHITE_POINT_DCI)
        default: return nil
        }
        switch cicp.transferCharacteristics {
        case 1, 6, 14, 15: encoding.transfer_function = JXL_TRANSFER_FUNCTION_709
        case 8: encoding.transfer_function = JXL_TRANSFER_FUNCTION_LINEAR
        case 13: encoding.transfer_function = JXL_TRANSFER_FUNCTION_SRGB
        case 16: encoding.transfer_function = JXL_TRANSFER_FUNCTION_PQ
        case 17: encoding.transfer_function = JXL_TRANSFER_FUNCTION_DCI
        case 18: encoding.transfer_function = JXL_TRANSFER_FUNCTION_HLG
        default: return nil
        }
        return encoding
    }
}
