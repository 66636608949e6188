import CLCMS
import CoderPNG
import ColorLCMS
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// PNG's `cHRM` and `gAMA` chunks: carried as an ICC profile built from them, which converts as
/// lcms converts from a profile it builds from the same primaries and gamma.
@Suite("PNG cHRM and gAMA as a profile")
struct PNGChunkProfileTests {
    let converter = LCMSColorConverter()

    /// `png` with `chunks` (type and payload) inserted after IHDR.
    static func inserting(_ chunks: [(String, [UInt8])], into png: Data) -> Data {
        var out = Data(png.prefix(8 + 25))  // signature, IHDR
        for (type, payload) in chunks {
            var body = Array(type.utf8) + payload
            out += be32(UInt32(payload.count))
            out += body
            out += be32(crc32(body))
            body.removeAll()
        }
        out += png.dropFirst(8 + 25)
        return out
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// A cHRM payload for white and primaries (x, y pairs).
    static func chrm(_ c: [Double]) -> [UInt8] { c.flatMap { be32(UInt32(($0 * 100_000).rounded())) } }

    static func gama(_ gamma: Double) -> [UInt8] { be32(UInt32((100_000 / gamma).rounded())) }

    /// The photo in a space (tagged by chunks), as lcms converts sRGB into that space.
    static func photoPNG(chromaticities: [Double], gamma: Double, chunks: [(String, [UInt8])]) throws -> (Data, Image) {
        let photo = try ConversionTests.photo()
        var inSpace = photo
        inSpace.pixels = try Reference.convert(
            photo.pixels, width: photo.width, rows: photo.height, from: .sRGB(), CLCMS_RGB8, 3,
            to: .rgb(chromaticities, gamma: gamma), CLCMS_RGB8, 3)
        let png = try PNGCoder().encode(inSpace, as: .png, options: EncodeOptions())
        return (inserting(chunks, into: png), photo)
    }

    @Test("cHRM with Display P3 primaries and gAMA 1/2.2 convert as lcms converts from the same space", arguments: [false, true])
    func chrmAndGama(thumbnail: Bool) throws {
        let p3 = Reference.d65 + [0.680, 0.320, 0.265, 0.690, 0.150, 0.060]
        let (data, photo) = try Self.photoPNG(chromaticities: p3, gamma: 2.2, chunks: [("gAMA", Self.gama(2.2)), ("cHRM", Self.chrm(p3))])
        var options = DecodeOptions()
        if thumbnail { options.thumbnailPixelSize = PixelSize(width: 240, height: 160) }
        let decoded = try PNGCoder().decode(data, options: options)
        let profile = try #require(decoded.iccProfile)
        #expect(ICCProfileHeader(profile)?.colorSpace == "RGB ")
        #expect(converter.needsConversion(decoded, for: .sRGB))
        let converted = try converter.convert(decoded, .sRGB)
        let reference = try Reference.convert(
            decoded.pixels, width: decoded.width, rows: decoded.height, from: .rgb(p3, gamma: 2.2), CLCMS_RGB8, 3, to: .sRGB(), CLCMS_RGB8, 3)
        let againstLCMS = difference(converted.pixels, reference)
        print("cHRM P3 (thumbnail \(thumbnail)): vs lcms mean \(againstLCMS.mean) max \(againstLCMS.max)")
        #expect(againstLCMS.mean <= 0.5 && againstLCMS.max <= 2)
        if !thumbnail {
            let againstOriginal = difference(converted.pixels, photo.pixels)
            #expect(againstOriginal.mean <= 1.5, "\(againstOriginal)")
            #expect(difference(decoded.pixels, photo.pixels).mean > 2, "the test can fail: unconverted, the pixels are off")
        }
        // Written back out, PNG carries it as iCCP.
        let again = try PNGCoder().decode(try PNGCoder().encode(decoded, as: .png, options: EncodeOptions()), options: DecodeOptions())
        #expect(again.iccProfile == profile)
    }

    @Test("a bare gAMA other than 1/2.2, 1.0 or 2.8 becomes a profile with BT.709 primaries")
    func bareGamma() throws {
        let bt709 = Reference.d65 + [0.64, 0.33, 0.30, 0.60, 0.15, 0.06]
        let (data, _) = try Self.photoPNG(chromaticities: bt709, gamma: 1.8, chunks: [("gAMA", Self.gama(1.8))])
        let decoded = try PNGCoder().decode(data, options: DecodeOptions())
        #expect(decoded.iccProfile != nil && decoded.cicp == nil)
        let converted = try converter.convert(decoded, .sRGB)
        let reference = try Reference.convert(
            decoded.pixels, width: decoded.width, rows: decoded.height, from: .rgb(bt709, gamma: 1.8), CLCMS_RGB8, 3, to: .sRGB(), CLCMS_RGB8, 3)
        #expect(difference(converted.pixels, reference).mean <= 0.5)
        // PngSuite: gAMA 250000 (file gamma 2.5, decoding exponent 0.4) becomes a profile lcms
        // accepts; its cHRM files give BT.709's primaries with gAMA 1.0: linear BT.709, as code points.
        let g25 = try PNGCoder().decode(try TestData.data("pngsuite/g25n2c08.png"), options: DecodeOptions())
        #expect(g25.iccProfile != nil)
        #expect(throws: Never.self) { try converter.convert(g25, .sRGB) }
        for name in ["ccwn2c08.png", "ccwn3p08.png"] {
            let suite = try PNGCoder().decode(try TestData.data("pngsuite/\(name)"), options: DecodeOptions())
            #expect(suite.iccProfile == nil && suite.cicp?.transferCharacteristics == 8, "\(name)")
        }
    }

    @Test("sRGB's own chromaticities with gAMA 1/2.2, an sRGB chunk or no chunk at all mean sRGB: no profile")
    func sRGBMeansNothing() throws {
        let srgb = Reference.d65 + [0.64, 0.33, 0.30, 0.60, 0.15, 0.06]
        let png = try PNGCoder().encode(try ConversionTests.photo(), as: .png, options: EncodeOptions())
        for chunks in [[("gAMA", Self.gama(2.2)), ("cHRM", Self.chrm(srgb))], [("sRGB", [0]), ("gAMA", Self.gama(1.8))], []] {
            let decoded = try PNGCoder().decode(Self.inserting(chunks, into: png), options: DecodeOptions())
            #expect(decoded.iccProfile == nil && decoded.cicp == nil, "\(chunks.map(\.0))")
        }
    }

    @Test("the built profile's colorants are Display P3's D50-adapted ones (as Apple's profile gives them)")
    func colorantsMatchAPublishedProfile() throws {
        let p3 = Chromaticities(white: (0.3127, 0.3290), red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060))
        let profile = try #require(ICCMatrixShaperProfile.make(chromaticities: p3, gamma: 2.2))
        func tag(_ name: String) -> [Double]? {
            let count = Int(profile[128]) << 24 | Int(profile[129]) << 16 | Int(profile[130]) << 8 | Int(profile[131])
            for i in 0..<count {
                let entry = 132 + 12 * i
                guard String(decoding: profile[entry..<entry + 4], as: UTF8.self) == name else { continue }
                let offset = Int(profile[entry + 4]) << 24 | Int(profile[entry + 5]) << 16 | Int(profile[entry + 6]) << 8 | Int(profile[entry + 7])
                return (0..<3).map { k in
                    let at = offset + 8 + 4 * k
                    let raw = UInt32(profile[at]) << 24 | UInt32(profile[at + 1]) << 16 | UInt32(profile[at + 2]) << 8 | UInt32(profile[at + 3])
                    return Double(Int32(bitPattern: raw)) / 65536
                }
            }
            return nil
        }
        // Display P3.icc (Apple): rXYZ 0.5151 0.2412 -0.0011, gXYZ 0.2920 0.6922 0.0419, bXYZ 0.1571 0.0666 0.7841.
        let expected = ["rXYZ": [0.5151, 0.2412, -0.0011], "gXYZ": [0.2920, 0.6922, 0.0419], "bXYZ": [0.1571, 0.0666, 0.7841]]
        for (name, values) in expected {
            let got = try #require(tag(name))
            #expect(zip(got, values).allSatisfy { abs($0 - $1) < 0.0015 }, "\(name): \(got)")
        }
        #expect(ICCMatrixShaperProfile.make(chromaticities: Chromaticities(white: (0.3, 0.3), red: (0.3, 0.3), green: (0.3, 0.3), blue: (0.3, 0.3)), gamma: 2.2) == nil)
        #expect(ICCMatrixShaperProfile.make(chromaticities: .sRGB, gamma: .nan) == nil)
    }
}
