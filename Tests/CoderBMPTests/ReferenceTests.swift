import AnimationReference
import CoderBMP
import CoderPNG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// Every BMP, ICO and CUR row of REFERENCE-FORMATS.tsv outside `broken/` (Pillow 13), decoded by
/// `BMPCoder` with CoderPNG for PNG entries.
///
/// A row matches when the SHA-256 of our RGBA equals Pillow's; an `ERROR` row (a Pillow limit,
/// not a bad file) matches when our RGBA, with RGB zeroed under alpha 0, equals one of the BMP
/// Suite "correct display" hashes in its note. Every other file is named in ``exceptions`` with
/// the reason and the check it gets instead.
@Suite("BMP and ICO against REFERENCE-FORMATS.tsv")
struct ReferenceTests {
    static let coder = BMPCoder(pngCoder: PNGCoder())
    static let rows = FormatReference.all.filter { !$0.path.hasPrefix("broken/") }

    enum Exception {
        /// 5/6-bit channels: Pillow expands them as `v × 255 / max` truncated, we round (as BMP
        /// Suite's correct PNGs do). Our pixels are mapped back to their n-bit values and
        /// expanded Pillow's way, then compared exactly with Pillow's hash.
        case pillowTruncatesExpansion(bits: [Int])
        /// 5-5-5-1 with an alpha mask: Pillow ignores the 1-bit alpha (RGB), we apply it. RGB is
        /// compared as above with alpha set to 255; alpha must be 0 or 255 with some 0.
        case pillowIgnoresOneBitAlpha
        /// Channels narrower or wider than 8 bits in unusual masks (Pillow refuses the layout):
        /// BMP Suite quantised the 8-bit original (`original`) to these depths, so each channel
        /// is compared with the original within half a quantisation step (+1 for rounding);
        /// their correct-display hashes use an 8-bit reduction we cannot reproduce exactly.
        case quantised(original: String, bits: [Int])
        /// 64-bit linear light (Pillow refuses it): encoded to sRGB, within 1 of the 8-bit original.
        case linear64(original: String)
        /// A V5 ICO entry whose embedded profile follows the pixels, leaving no room for an AND
        /// mask: Pillow reads the entry's last bytes (the profile's) as the mask; we keep it
        /// opaque. RGB is compared with `original` (the same picture as a plain BMP), alpha is 255.
        case profileWhereTheMaskWouldBe(original: String)
        /// Pillow keeps the colour under alpha 0 as 0; our entries keep the palette colour.
        /// Compared with RGB zeroed where alpha is 0 (the README's rule).
        case rgbUnderAlphaZero
        /// Pillow opens the shallowest entry of the largest size; we open the deepest. Compared
        /// with the `deepest-entry` hash in the note.
        case deepestEntry
        /// Refused with a typed error, as Pillow refuses it (no correct-display check possible
        /// without the codec): OS/2 Huffman 1D, OS/2 RLE24, embedded JPEG.
        case refused(ImageKernelError.Code)
    }

    static let exceptions: [String: Exception] = [
        "bmp/bmpsuite/g/rgb16-565.bmp": .pillowTruncatesExpansion(bits: [5, 6, 5]),
        "bmp/bmpsuite/g/rgb16-565pal.bmp": .pillowTruncatesExpansion(bits: [5, 6, 5]),
        "bmp/bmpsuite/g/rgb16.bmp": .pillowTruncatesExpansion(bits: [5, 5, 5]),
        "bmp/bmpsuite/g/rgb16bfdef.bmp": .pillowTruncatesExpansion(bits: [5, 5, 5]),
        "bmp/bmpsuite/q/rgb16faketrns.bmp": .pillowTruncatesExpansion(bits: [5, 5, 5]),
        "bmp/bmpsuite/q/rgba16-5551.bmp": .pillowIgnoresOneBitAlpha,
        "bmp/bmpsuite/q/rgb32-111110.bmp": .quantised(original: "bmp/bmpsuite/g/rgb24.bmp", bits: [11, 11, 10]),
        "bmp/bmpsuite/q/rgb32-7187.bmp": .quantised(original: "bmp/bmpsuite/g/rgb24.bmp", bits: [7, 18, 7]),
        "bmp/bmpsuite/q/rgba32-61754.bmp": .quantised(original: "bmp/bmpsuite/q/rgba32-1.bmp", bits: [6, 17, 5, 4]),
        "bmp/bmpsuite/q/rgba32-81284.bmp": .quantised(original: "bmp/bmpsuite/q/rgba32-1.bmp", bits: [8, 12, 8, 4]),
        "bmp/bmpsuite/q/rgba64.bmp": .linear64(original: "bmp/bmpsuite/q/rgba32-1.bmp"),
        "ico/image-rs/bmp_v5_with_icc.ico": .profileWhereTheMaskWouldBe(original: "bmp/bmpsuite/g/rgb24.bmp"),
        "ico/pillow/mask_1.cur": .rgbUnderAlphaZero,
        "ico/pillow/mask_L.cur": .rgbUnderAlphaZero,
        "ico/image-rs/multiple_entries_with_different_bit_depth.ico": .deepestEntry,
        "bmp/bmpsuite/q/pal1huffmsb.bmp": .refused(.unsupported),
        "bmp/bmpsuite/q/rgb24rle24.bmp": .refused(.unsupported),
        "bmp/bmpsuite/q/rgb24jpeg.bmp": .refused(.unsupported),
    ]

    @Test func tableCoversTheCorpus() {
        #expect(Self.rows.count == 92, "70 BMP Suite, 5 Pillow BMPs, 17 ICO and CUR")
        #expect(Self.exceptions.keys.allSatisfy { path in Self.rows.contains { $0.path == path } })
    }

    @Test("decodes as the reference says, or as each exception explains", arguments: rows)
    func matchesReference(_ row: FormatReference) throws {
        let data = try TestData.data(row.path)
        let exception = Self.exceptions[row.path]
        if case .refused(let code) = exception {
            let error = #expect(throws: ImageKernelError.self) { try Self.coder.decode(data, options: DecodeOptions()) }
            #expect(error?.code == code && error?.plugin == "CoderBMP" && error?.stage == .decode)
            return
        }
        let image = try Self.coder.decode(data, options: DecodeOptions())
        #expect(image.isConsistent)
        #expect(image.sourceFormat == (row.path.hasPrefix("ico/") ? .ico : .bmp))
        if !row.isError { #expect(image.width == row.width && image.height == row.height) }
        let pixels = rgba8(image)
        switch exception {
        case nil where row.isError:
            #expect(row.correctDisplayHashes.contains(sha256Hex(rgba8(image, zeroingTransparentRGB: true))), "correct display")
        case nil:
            #expect(sha256Hex(pixels) == row.sha256)
        case .pillowTruncatesExpansion(let bits):
            #expect(sha256Hex(Self.reexpandedAsPillow(pixels, bits: bits)) == row.sha256)
        case .pillowIgnoresOneBitAlpha:
            var opaque = Self.reexpandedAsPillow(pixels, bits: [5, 5, 5])
            for i in stride(from: 3, to: opaque.count, by: 4) { opaque[i] = 255 }
            #expect(sha256Hex(opaque) == row.sha256)
            let alphas = Set(stride(from: 3, to: pixels.count, by: 4).map { pixels[$0] })
            #expect(alphas == [0, 255])
        case .quantised(let original, let bits):
            let reference = rgba8(try Self.coder.decode(try TestData.data(original), options: DecodeOptions()))
            let tolerance = bits.map { $0 >= 8 ? 1 : Int((255.0 / Double((1 << $0) - 1) / 2).rounded(.up)) + 1 }
            #expect(Self.largestExcess(pixels, reference, tolerance: tolerance + [0]) == 0)
        case .linear64(let original):
            let reference = rgba8(try Self.coder.decode(try TestData.data(original), options: DecodeOptions()))
            #expect(Self.largestExcess(pixels, reference, tolerance: [1, 1, 1, 1]) == 0)
        case .profileWhereTheMaskWouldBe(let original):
            #expect(sha256Hex(pixels) == sha256Hex(rgba8(try Self.coder.decode(try TestData.data(original), options: DecodeOptions()))), "same picture")
            #expect(image.iccProfile?.count == 3048)
        case .rgbUnderAlphaZero:
            #expect(sha256Hex(rgba8(image, zeroingTransparentRGB: true)) == row.sha256)
        case .deepestEntry:
            #expect(sha256Hex(pixels) == row.deepestEntryHash)
        case .refused:
            break
        }
    }

    /// Our rounded expansion of n-bit channels mapped back to n bits, then expanded as Pillow
    /// does (`v × 255 / max`, truncated). Exact because rounding is invertible for n ≤ 8.
    static func reexpandedAsPillow(_ pixels: [UInt8], bits: [Int]) -> [UInt8] {
        var out = pixels
        for (channel, n) in bits.enumerated() {
            let maximum = (1 << n) - 1
            for i in stride(from: channel, to: out.count, by: 4) {
                let value = (Int(out[i]) * maximum + 127) / 255
                out[i] = UInt8(value * 255 / maximum)
            }
        }
        return out
    }

    /// How far the largest difference goes past the per-channel tolerance (0 when within it),
    /// ignoring colour where both pixels are fully transparent.
    static func largestExcess(_ a: [UInt8], _ b: [UInt8], tolerance: [Int]) -> Int {
        guard a.count == b.count else { return Int.max }
        var excess = 0
        for pixel in stride(from: 0, to: a.count, by: 4) {
            let transparent = a[pixel + 3] == 0 && b[pixel + 3] == 0
            for c in 0..<4 where !(transparent && c < 3) {
                excess = max(excess, abs(Int(a[pixel + c]) - Int(b[pixel + c])) - tolerance[c])
            }
        }
        return excess
    }

    @Test func iccProfileIsCarried() throws {
        let image = try Self.coder.decode(try TestData.data("bmp/bmpsuite/q/rgb24prof.bmp"), options: DecodeOptions())
        let profile = try #require(image.iccProfile)
        #expect(profile.count > 128 && Array(profile[36..<40]) == Array("acsp".utf8))
        let linked = try Self.coder.decode(try TestData.data("bmp/bmpsuite/q/rgb24lprof.bmp"), options: DecodeOptions())
        #expect(linked.iccProfile == nil, "a linked profile names a file; it is not read")
    }
}
