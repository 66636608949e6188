import CLCMS
import ColorLCMS
import Foundation
import ImageKernel
import Testing

/// The converter's direct 8-bit path between matrix/shaper profiles, against lcms's own transform
/// of the same pixels: which profiles take it (``LCMSColorConverter/conversionCounts``), that it
/// stays within one level, and that everything else still runs through lcms.
@Suite("Direct matrix/shaper path")
struct DirectPathTests {
    /// Ghostscript's RGB matrix/shaper profiles (Debian's libgs-common), where installed.
    static let ghostscriptRGB = ["a98", "default_rgb", "esrgb", "ps_rgb", "rommrgb", "scrgb", "srgb"]
        .map { "/usr/share/color/icc/ghostscript/\($0).icc" }
        .filter { FileManager.default.fileExists(atPath: $0) }

    /// Synthetic matrix/shaper profiles made by lcms: power curves, the sRGB parametric curve and
    /// tabulated curves (PQ and HLG are 4096-entry tables).
    static let synthetic = ["gamma 1.8", "gamma 2.2", "Display P3", "Rec. 2020 PQ", "Rec. 2020 HLG", "red and green swapped"]

    static func syntheticProfile(_ name: String) throws -> Reference.Profile {
        let bt2020 = Reference.d65 + [0.708, 0.292, 0.170, 0.797, 0.131, 0.046]
        switch name {
        case "gamma 1.8": return try Reference.proPhoto()
        case "gamma 2.2": return try .rgb(Reference.d65 + [0.64, 0.33, 0.21, 0.71, 0.15, 0.06], gamma: 2.2)
        case "Display P3": return try Reference.displayP3()
        case "Rec. 2020 PQ": return try .rgb(bt2020, curve: CLCMS_CURVE_PQ)
        case "Rec. 2020 HLG": return try .rgb(bt2020, curve: CLCMS_CURVE_HLG)
        default: return try Reference.swappedRedGreen()
        }
    }

    /// `count` random RGB (or RGBA) pixels, the same for a seed.
    static func randomPixels(_ count: Int, channels: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<(count * channels)).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    /// Converts `pixels` tagged with `profile` to sRGB, checks the direct path ran once, and
    /// returns the largest difference from lcms's own transform.
    static func directAgainstLCMS(_ profile: Reference.Profile, pixels: [UInt8], width: Int, channels: Int) throws -> Int {
        let converter = LCMSColorConverter()
        let rows = pixels.count / (width * channels)
        var image = try Image(width: width, height: rows, pixelFormat: channels == 4 ? .rgba8 : .rgb8, pixels: pixels)
        image.iccProfile = profile.bytes
        let converted = try converter.convert(image, .sRGB)
        #expect(converter.conversionCounts == .init(direct: 1, lcms: 0))
        let layout = channels == 4 ? CLCMS_RGBA8 : CLCMS_RGB8
        let reference = try Reference.convert(
            pixels, width: width, rows: rows, from: .icc(profile.bytes), layout, channels, to: .sRGB(), layout, channels)
        return largestDifference(converted.pixels, reference)
    }

    @Test("Display P3 to sRGB: every one of the 256³ colours within one level of lcms")
    func exhaustiveDisplayP3() throws {
        var pixels = [UInt8](repeating: 0, count: (1 << 24) * 3)
        pixels.withUnsafeMutableBufferPointer { out in
            for colour in 0..<(1 << 24) {
                out[colour * 3] = UInt8(colour >> 16)
                out[colour * 3 + 1] = UInt8((colour >> 8) & 255)
                out[colour * 3 + 2] = UInt8(colour & 255)
            }
        }
        #expect(try Self.directAgainstLCMS(Reference.displayP3(), pixels: pixels, width: 4096, channels: 3) <= 1)
    }

    @Test("synthetic matrix/shaper profiles take the direct path, within one level of lcms on 1 M random colours", arguments: synthetic)
    func syntheticProfiles(name: String) throws {
        let pixels = Self.randomPixels(1 << 20, channels: 3, seed: UInt64(name.utf8.count))
        #expect(try Self.directAgainstLCMS(Self.syntheticProfile(name), pixels: pixels, width: 1024, channels: 3) <= 1)
    }

    @Test("Ghostscript's RGB profiles take the direct path, within one level of lcms on 1 M random colours", arguments: ghostscriptRGB)
    func ghostscriptProfiles(path: String) throws {
        let profile = try Reference.Profile.icc([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        let pixels = Self.randomPixels(1 << 20, channels: 3, seed: 7)
        #expect(try Self.directAgainstLCMS(profile, pixels: pixels, width: 1024, channels: 3) <= 1)
    }

    @Test("RGBA keeps every alpha sample and converts its colour within one level; premultiplied alpha stays a typed error")
    func alpha() throws {
        let pixels = Self.randomPixels(1 << 18, channels: 4, seed: 3)
        let profile = try Reference.adobeRGB()
        #expect(try Self.directAgainstLCMS(profile, pixels: pixels, width: 512, channels: 4) <= 1)
        var image = try Image(width: 512, height: 512, pixelFormat: .rgba8, pixels: pixels)
        image.iccProfile = profile.bytes
        let converted = try LCMSColorConverter().convert(image, .sRGB)
        #expect(converted.pixelFormat == .rgba8)
        #expect(stride(from: 3, to: pixels.count, by: 4).allSatisfy { converted.pixels[$0] == pixels[$0] })
        var premultiplied = try Image(width: 512, height: 512, pixelFormat: .rgba8Premultiplied, pixels: pixels)
        premultiplied.iccProfile = profile.bytes
        let converter = LCMSColorConverter()
        #expect(throws: ImageKernelError.self) { try converter.convert(premultiplied, .sRGB) }
        #expect(converter.conversionCounts == .init(direct: 0, lcms: 0))
    }

    @Test("a profile with LUT tags runs through lcms, even with matrix and curve tags beside them")
    func lutProfileRunsThroughLCMS() throws {
        // The tables swap red and green against the colorants: the matrix would be unmistakable.
        let p3 = try Reference.displayP3()
        let lut = try withExtendedLifetime(p3) { try Reference.Profile { clcms_profile_rgb_lut(p3.handle, 1, $0, $1) } }
        let pixels = Self.randomPixels(1 << 16, channels: 3, seed: 5)
        var image = try Image(width: 256, height: 256, pixelFormat: .rgb8, pixels: pixels)
        image.iccProfile = lut.bytes
        let converter = LCMSColorConverter()
        let converted = try converter.convert(image, .sRGB)
        #expect(converter.conversionCounts == .init(direct: 0, lcms: 1))
        let reference = try Reference.convert(pixels, width: 256, rows: 256, from: .icc(lut.bytes), CLCMS_RGB8, 3, to: .sRGB(), CLCMS_RGB8, 3)
        #expect(converted.pixels == reference ? true : false, "not lcms's conversion")
        let asMatrix = try Reference.convert(pixels, width: 256, rows: 256, from: Reference.displayP3(), CLCMS_RGB8, 3, to: .sRGB(), CLCMS_RGB8, 3)
        #expect(largestDifference(converted.pixels, asMatrix) > 100)
    }

    @Test("CMYK through its profile, 16 bits and absolute colorimetric run through lcms")
    func otherConversionsRunThroughLCMS() throws {
        let converter = LCMSColorConverter()
        let cmyk = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Reference.ghostscriptCMYKPath)))
        let samples = Self.randomPixels(64, channels: 4, seed: 9)
        var rgb = [UInt8](repeating: 0, count: 64 * 3)
        try samples.withUnsafeBytes { source in
            try rgb.withUnsafeMutableBytes { out in
                try converter.convertCMYK(
                    profile: cmyk, inverted: false, source: source.baseAddress!, sourceStride: 256,
                    destination: out.baseAddress!, destinationStride: 192, width: 64, rows: 1, .sRGB)
            }
        }
        #expect(converter.conversionCounts == .init(direct: 0, lcms: 1))
        var wide = try Image(width: 64, height: 1, pixelFormat: .rgb16, pixels: Self.randomPixels(64, channels: 6, seed: 2))
        wide.iccProfile = try Reference.displayP3().bytes
        _ = try converter.convert(wide, .sRGB)
        var absolute = try Image(width: 64, height: 1, pixelFormat: .rgb8, pixels: Self.randomPixels(64, channels: 3, seed: 2))
        absolute.iccProfile = wide.iccProfile
        _ = try converter.convert(absolute, ColorConversion(intent: .absoluteColorimetric))
        #expect(converter.conversionCounts == .init(direct: 0, lcms: 3))
    }

    @Test("allowsDirectPath false runs matrix/shaper pairs through lcms, exactly as lcms converts")
    func directPathOff() throws {
        let converter = LCMSColorConverter(allowsDirectPath: false)
        let pixels = Self.randomPixels(1 << 16, channels: 3, seed: 4)
        var image = try Image(width: 256, height: 256, pixelFormat: .rgb8, pixels: pixels)
        image.iccProfile = try Reference.displayP3().bytes
        let converted = try converter.convert(image, .sRGB)
        #expect(converter.conversionCounts == .init(direct: 0, lcms: 1))
        // lcms reads the profile from the same bytes (its serialised form rounds the colorants).
        let reference = try Reference.convert(pixels, width: 256, rows: 256, from: .icc(image.iccProfile!), CLCMS_RGB8, 3, to: .sRGB(), CLCMS_RGB8, 3)
        #expect(converted.pixels == reference ? true : false)
    }

    @Test("the probe set refuses a direct path that lcms does not agree with")
    func verifierRefusesDisagreement() throws {
        let p3 = try Reference.displayP3(), sRGB = try Reference.Profile.sRGB()
        let direct = try #require(clcms_fast8_create(p3.handle, sRGB.handle, 1, 1))
        defer { clcms_fast8_free(direct) }
        var error = [CChar](repeating: 0, count: 256)
        for channels: Int32 in [3, 4] {
            let layout = Int32((channels == 3 ? CLCMS_RGB8 : CLCMS_RGBA8).rawValue)
            let same = try #require(clcms_transform_create(p3.handle, layout, sRGB.handle, layout, 1, 1, &error, 256))
            let other = try #require(clcms_transform_create(sRGB.handle, layout, sRGB.handle, layout, 1, 1, &error, 256))
            defer { clcms_transform_free(same); clcms_transform_free(other) }
            #expect(clcms_fast8_verify(direct, same, channels) <= 1)
            #expect(clcms_fast8_verify(direct, other, channels) > 1)
        }
    }
}

/// The largest absolute difference of two equally long sample arrays.
private func largestDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    precondition(a.count == b.count)
    return a.withUnsafeBufferPointer { x in
        b.withUnsafeBufferPointer { y in
            var largest: UInt8 = 0
            for i in 0..<x.count {
                let d = x[i] > y[i] ? x[i] - y[i] : y[i] - x[i]
                if d > largest { largest = d }
            }
            return Int(largest)
        }
    }
}
