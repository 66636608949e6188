import ColorLCMS
import FuzzSupport
import ImageKernel

/// ICC profiles (truncated, lying sizes, huge tag counts, wrong classes) through lcms2: as an
/// 8-bit RGB image's profile converted to sRGB, as a gray image's, and as a CMYK file's profile.
/// Every outcome must be an image or a typed error.
let converter = LCMSColorConverter()

func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let profile = [UInt8](fuzzInput(start, count))
    let pixels: [UInt8] = (0..<48).map { UInt8(truncatingIfNeeded: $0 &* 37) }
    if var rgb = try? Image(width: 4, height: 4, pixelFormat: .rgb8, pixels: pixels) {
        rgb.iccProfile = profile
        _ = converter.needsConversion(rgb, for: .sRGB)
        _ = try? converter.convert(rgb, .sRGB)
        _ = try? converter.convert(rgb, ColorConversion(target: .profile(profile), intent: .perceptual))
    }
    if var gray = try? Image(width: 4, height: 4, pixelFormat: .gray8, pixels: Array(pixels.prefix(16))) {
        gray.iccProfile = profile
        _ = try? converter.convert(gray, .sRGB)
    }
    var rgbOut = [UInt8](repeating: 0, count: 12)
    pixels.withUnsafeBytes { source in
        rgbOut.withUnsafeMutableBytes { destination in
            _ = try? converter.convertCMYK(
                profile: profile, inverted: count % 2 == 0, source: source.baseAddress!, sourceStride: 16,
                destination: destination.baseAddress!, destinationStride: 12, width: 4, rows: 1, .sRGB)
        }
    }
    return 0
}

runFuzzer { fuzz($0, $1) }
