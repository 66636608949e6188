import CLCMS
import ImageKernel

/// Profiles and conversions made with lcms directly (the reference the tests measure against):
/// nothing here goes through `LCMSColorConverter`'s caches, bands or checks.
enum Reference {
    /// An lcms profile, freed on deinit.
    final class Profile {
        let handle: OpaquePointer
        init(_ make: (UnsafeMutablePointer<CChar>, Int) -> OpaquePointer?) throws {
            var error = [CChar](repeating: 0, count: 256)
            guard let handle = error.withUnsafeMutableBufferPointer({ make($0.baseAddress!, $0.count) }) else {
                throw ReferenceError(error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
            }
            self.handle = handle
        }
        deinit { clcms_profile_free(handle) }

        var bytes: [UInt8] {
            let size = clcms_profile_save(handle, nil, 0)
            var out = [UInt8](repeating: 0, count: size)
            _ = out.withUnsafeMutableBytes { clcms_profile_save(handle, $0.baseAddress, size) }
            return out
        }

        static func icc(_ bytes: [UInt8]) throws -> Profile {
            try Profile { e, n in bytes.withUnsafeBytes { clcms_profile_from_icc($0.baseAddress, $0.count, e, n) } }
        }
        static func sRGB() throws -> Profile { try Profile { clcms_profile_srgb($0, $1) } }
        static func rgb(_ chromaticities: [Double], gamma: Double) throws -> Profile {
            try Profile { e, n in chromaticities.withUnsafeBufferPointer { clcms_profile_rgb_gamma($0.baseAddress, gamma, e, n) } }
        }
        static func rgb(_ chromaticities: [Double], curve: clcms_curve) throws -> Profile {
            try Profile { e, n in chromaticities.withUnsafeBufferPointer { clcms_profile_rgb($0.baseAddress, Int32(curve.rawValue), e, n) } }
        }
    }

    struct ReferenceError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static let d65 = [0.3127, 0.3290]
    /// Adobe RGB (1998): its primaries and a 563/256 power curve.
    static func adobeRGB() throws -> Profile { try .rgb(d65 + [0.64, 0.33, 0.21, 0.71, 0.15, 0.06], gamma: 563.0 / 256) }
    /// ProPhoto RGB (ROMM): D50, its primaries, gamma 1.8.
    static func proPhoto() throws -> Profile { try .rgb([0.3457, 0.3585, 0.7347, 0.2653, 0.1596, 0.8404, 0.0366, 0.0001], gamma: 1.8) }
    /// Display P3 built from its primaries (D65) with the sRGB curve.
    static func displayP3() throws -> Profile { try .rgb(d65 + [0.680, 0.320, 0.265, 0.690, 0.150, 0.060], curve: CLCMS_CURVE_SRGB) }
    /// sRGB's primaries with red and green swapped: an error in handling it is unmistakable.
    static func swappedRedGreen() throws -> Profile { try .rgb(d65 + [0.300, 0.600, 0.640, 0.330, 0.150, 0.060], curve: CLCMS_CURVE_SRGB) }
    /// Ghostscript's default CMYK output profile (Debian's libgs-common).
    static let ghostscriptCMYKPath = "/usr/share/color/icc/ghostscript/default_cmyk.icc"

    /// `pixels` (rows `width` pixels long, tightly packed) converted by lcms from one profile to another.
    static func convert(
        _ pixels: [UInt8], width: Int, rows: Int, from source: Profile, _ sourcePixels: clcms_pixels, _ sourceBytesPerPixel: Int,
        to target: Profile, _ targetPixels: clcms_pixels, _ targetBytesPerPixel: Int,
        intent: Int32 = 1, blackPointCompensation: Bool = true
    ) throws -> [UInt8] {
        var error = [CChar](repeating: 0, count: 256)
        guard let transform = error.withUnsafeMutableBufferPointer({
            clcms_transform_create(
                source.handle, Int32(sourcePixels.rawValue), target.handle, Int32(targetPixels.rawValue), intent,
                blackPointCompensation ? 1 : 0, $0.baseAddress, $0.count)
        }) else { throw ReferenceError(error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }) }
        defer { clcms_transform_free(transform) }
        var out = [UInt8](repeating: 0, count: width * rows * targetBytesPerPixel)
        pixels.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                clcms_transform_run(transform, src.baseAddress, width * sourceBytesPerPixel, dst.baseAddress, width * targetBytesPerPixel, UInt32(width), UInt32(rows))
            }
        }
        return out
    }
}

/// Mean and largest absolute difference of two sample arrays (8-bit).
func difference(_ a: [UInt8], _ b: [UInt8]) -> (mean: Double, max: Int) {
    precondition(a.count == b.count)
    var total = 0, largest = 0
    for i in 0..<a.count {
        let d = abs(Int(a[i]) - Int(b[i]))
        total += d
        largest = max(largest, d)
    }
    return (Double(total) / Double(max(1, a.count)), largest)
}
