import CLCMS
import ColorLCMS
import Foundation
import ImageKernel
import Testing

/// Profiles that are broken, lying or of the wrong kind end in a typed error (or a documented
/// fallback), never a crash.
@Suite("Hostile and unusable profiles")
struct HostileProfileTests {
    let converter = LCMSColorConverter()

    func image(with profile: [UInt8]) throws -> Image {
        var image = try Image(width: 8, height: 8, pixelFormat: .rgb8, pixels: [UInt8](repeating: 90, count: 8 * 8 * 3))
        image.iccProfile = profile
        return image
    }

    /// Converts, and returns whether it worked; any failure must be a typed error at the transform stage.
    func outcome(_ profile: [UInt8]) throws -> Bool {
        do {
            _ = try converter.convert(try image(with: profile), .sRGB)
            return true
        } catch let error as ImageKernelError {
            #expect(error.stage == .transform && error.plugin == "lcms2", "\(error)")
            return false
        }
    }

    @Test("truncated, lying and scrambled copies of a real profile")
    func mutatedProfiles() throws {
        let good = try Reference.adobeRGB().bytes
        #expect(try outcome(good))
        var refused = 0, total = 0
        // Every truncation length across the header and tag table, then every 97th byte.
        for length in Array(0..<200) + Array(stride(from: 200, to: good.count, by: 97)) {
            total += 1
            if try !outcome(Array(good.prefix(length))) { refused += 1 }
        }
        // A declared size far past the bytes, and a tag count of 2^32 − 1.
        var lying = good
        lying.replaceSubrange(0..<4, with: [0x7F, 0xFF, 0xFF, 0xFF])
        _ = try outcome(lying)
        var manyTags = good
        manyTags.replaceSubrange(128..<132, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try !outcome(manyTags))
        // Seeded random byte changes: each must convert or fail cleanly.
        var generator = SplitMix64(seed: 7)
        for _ in 0..<300 {
            var scrambled = good
            for _ in 0..<4 { scrambled[Int(generator.next() % UInt64(scrambled.count))] = UInt8(truncatingIfNeeded: generator.next()) }
            total += 1
            if try !outcome(scrambled) { refused += 1 }
        }
        print("hostile profiles: \(refused) of \(total) refused with a typed error, the rest converted")
        #expect(refused > 150)
    }

    @Test("a profile whose colour space does not match the pixels is refused")
    func wrongSpace() throws {
        let gray = try Reference.Profile { clcms_profile_gray(0.3127, 0.3290, Int32(CLCMS_CURVE_SRGB.rawValue), $0, $1) }.bytes
        #expect(throws: ImageKernelError.self) { try converter.convert(try image(with: gray), .sRGB) }
        // A CMYK profile on RGB pixels: a coder's naive CMYK-to-RGB made them; left as they are.
        let cmyk = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Reference.ghostscriptCMYKPath)))
        let tagged = try image(with: cmyk)
        #expect(!converter.needsConversion(tagged, for: .sRGB))
        let untagged = try ColorConversionTransformer(converter: converter).transform(tagged)
        #expect(untagged.iccProfile == nil && (untagged.pixels == tagged.pixels ? true : false))
    }

    @Test("premultiplied alpha and a CMYK target are refused")
    func unusableRequests() throws {
        var premultiplied = try Image(width: 2, height: 2, pixelFormat: .rgba8Premultiplied, pixels: [UInt8](repeating: 100, count: 16))
        premultiplied.iccProfile = try Reference.adobeRGB().bytes
        #expect(throws: ImageKernelError.self) { try converter.convert(premultiplied, .sRGB) }
        let cmyk = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Reference.ghostscriptCMYKPath)))
        let photo = try Image(width: 2, height: 2, pixelFormat: .rgb8, pixels: [UInt8](repeating: 100, count: 12))
        #expect(throws: ImageKernelError.self) { try converter.convert(photo, ColorConversion(target: .profile(cmyk))) }
        #expect(throws: ImageKernelError.self) { try converter.convert(photo, ColorConversion(target: .profile([1, 2, 3]))) }
    }
}

/// SplitMix64: a seeded generator, so the scrambled profiles are the same every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
