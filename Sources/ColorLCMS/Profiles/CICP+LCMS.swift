import CLCMS
import ImageKernel

extension CICP {
    /// Chromaticities (white x y, red x y, green x y, blue x y) of the primaries H.273 defines
    /// for display use; nil for others (XYZ, reserved values).
    var chromaticities: [Double]? {
        let d65 = [0.3127, 0.3290]
        switch colourPrimaries {
        case 1, 2: return d65 + [0.640, 0.330, 0.300, 0.600, 0.150, 0.060]  // BT.709 / sRGB (2: unspecified)
        case 4: return [0.310, 0.316, 0.670, 0.330, 0.210, 0.710, 0.140, 0.080]  // BT.470 M
        case 5: return d65 + [0.640, 0.330, 0.290, 0.600, 0.150, 0.060]  // BT.601 625
        case 6, 7: return d65 + [0.630, 0.340, 0.310, 0.595, 0.155, 0.070]  // BT.601 525, SMPTE 240
        case 8: return [0.310, 0.316, 0.681, 0.319, 0.243, 0.692, 0.145, 0.049]  // generic film
        case 9: return d65 + [0.708, 0.292, 0.170, 0.797, 0.131, 0.046]  // BT.2020
        case 11: return [0.314, 0.351, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060]  // DCI-P3
        case 12: return d65 + [0.680, 0.320, 0.265, 0.690, 0.150, 0.060]  // Display P3
        case 22: return d65 + [0.630, 0.340, 0.295, 0.605, 0.155, 0.077]  // EBU 3213
        default: return nil
        }
    }

    /// The lcms curve for the transfer characteristics; nil where none is built.
    var curve: clcms_curve? {
        switch transferCharacteristics {
        case 2, 13: CLCMS_CURVE_SRGB  // 2 is unspecified: sRGB on the web
        case 1, 6, 14, 15: CLCMS_CURVE_BT709
        case 8: CLCMS_CURVE_LINEAR
        case 4: CLCMS_CURVE_GAMMA22
        case 5: CLCMS_CURVE_GAMMA28
        case 16: CLCMS_CURVE_PQ
        case 18: CLCMS_CURVE_HLG
        default: nil
        }
    }

    /// An lcms profile for these code points: RGB, or gray for gray images.
    func profile(gray: Bool, plugin: String) throws(ImageKernelError) -> LCMSProfile {
        guard let c = chromaticities, let curve else {
            throw ImageKernelError(
                stage: .transform, plugin: plugin, code: .unsupported,
                message: "no colour space is known for CICP \(self) (primaries \(colourPrimaries), transfer \(transferCharacteristics))")
        }
        if gray {
            return try LCMSProfile.make("CICP \(self) as gray", plugin: plugin) { clcms_profile_gray(c[0], c[1], Int32(curve.rawValue), $0, $1) }
        }
        return try LCMSProfile.make("CICP \(self)", plugin: plugin) { error, size in
            c.withUnsafeBufferPointer { clcms_profile_rgb($0.baseAddress, Int32(curve.rawValue), error, size) }
        }
    }
}
