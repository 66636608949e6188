import CLCMS
import ColorLCMS
import ImageKernel
import Testing

/// ``LCMSColorConverter/convertPlanes(_:_:)`` against lcms converting the same pixels as RGB:
/// each pixel made R′G′B′ with its chroma sample (libjpeg's fixed-point formulas), converted by
/// lcms, back to Y′; each chroma sample that of its block's mean converted colour.
@Suite("Direct path on Y′CbCr planes")
struct PlanesConversionTests {
    /// Random planes of an odd size (so the last column and row of blocks are partial).
    static func planes(_ subsampling: YCbCrImage.Subsampling, width: Int = 301, height: Int = 201, seed: UInt64) throws -> YCbCrImage {
        let chroma = subsampling.chromaSize(width: width, height: height)
        let luma = DirectPathTests.randomPixels(width * height, channels: 1, seed: seed)
        let cb = DirectPathTests.randomPixels(chroma.width * chroma.height, channels: 1, seed: seed + 1).map { 64 + $0 / 2 }
        let cr = DirectPathTests.randomPixels(chroma.width * chroma.height, channels: 1, seed: seed + 2).map { 64 + $0 / 2 }
        return try YCbCrImage(
            luma: Image(width: width, height: height, pixelFormat: .gray8, pixels: luma),
            blueDifference: Image(width: chroma.width, height: chroma.height, pixelFormat: .gray8, pixels: cb),
            redDifference: Image(width: chroma.width, height: chroma.height, pixelFormat: .gray8, pixels: cr),
            subsampling: subsampling)
    }

    /// What the planes should become, computed through lcms's RGB transform.
    static func reference(_ planes: YCbCrImage, profile: Reference.Profile) throws -> (luma: [UInt8], cb: [UInt8], cr: [UInt8]) {
        let (width, height, s) = (planes.width, planes.height, planes.subsampling)
        let chromaWidth = planes.blueDifference.width
        func clamp(_ v: Int) -> UInt8 { UInt8(max(0, min(255, v))) }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let c = (y / s.vertical) * chromaWidth + x / s.horizontal
                let u = Int(planes.blueDifference.pixels[c]) - 128, v = Int(planes.redDifference.pixels[c]) - 128
                let l = Int(planes.luma.pixels[y * width + x])
                rgb[(y * width + x) * 3] = clamp(l + ((91881 * v + 32768) >> 16))
                rgb[(y * width + x) * 3 + 1] = clamp(l + ((-22554 * u - 46802 * v + 32768) >> 16))
                rgb[(y * width + x) * 3 + 2] = clamp(l + ((116130 * u + 32768) >> 16))
            }
        }
        let out = try Reference.convert(rgb, width: width, rows: height, from: profile, CLCMS_RGB8, 3, to: .sRGB(), CLCMS_RGB8, 3)
        func level(_ r: Double, _ g: Double, _ b: Double, _ weights: (Double, Double, Double), plus offset: Double) -> UInt8 {
            let value: Double = weights.0 * r + weights.1 * g + weights.2 * b + offset
            return clamp(Int(value.rounded()))
        }
        var luma = [UInt8]()
        for p in 0..<(width * height) {
            luma.append(level(Double(out[p * 3]), Double(out[p * 3 + 1]), Double(out[p * 3 + 2]), (0.299, 0.587, 0.114), plus: 0))
        }
        var cb = [UInt8](), cr = [UInt8]()
        for cy in 0..<planes.blueDifference.height {
            for cx in 0..<chromaWidth {
                var sum = (0.0, 0.0, 0.0), n = 0.0
                for y in (cy * s.vertical)..<min(height, (cy + 1) * s.vertical) {
                    for x in (cx * s.horizontal)..<min(width, (cx + 1) * s.horizontal) {
                        let p = (y * width + x) * 3
                        sum.0 += Double(out[p])
                        sum.1 += Double(out[p + 1])
                        sum.2 += Double(out[p + 2])
                        n += 1
                    }
                }
                let (r, g, b) = (sum.0 / n, sum.1 / n, sum.2 / n)
                cb.append(level(r, g, b, (-0.16874, -0.33126, 0.5), plus: 128))
                cr.append(level(r, g, b, (0.5, -0.41869, -0.08131), plus: 128))
            }
        }
        return (luma, cb, cr)
    }

    @Test("Display P3 planes convert within one level of lcms, at 4:2:0, 4:2:2 and 4:4:4, partial blocks included", arguments: [
        YCbCrImage.Subsampling.s420, .s422, .none,
    ])
    func displayP3Planes(subsampling: YCbCrImage.Subsampling) throws {
        let profile = try Reference.displayP3()
        var planes = try Self.planes(subsampling, seed: 11)
        planes.iccProfile = profile.bytes
        let converter = LCMSColorConverter()
        let converted = try #require(try converter.convertPlanes(planes, .sRGB))
        #expect(converter.conversionCounts == .init(direct: 1, lcms: 0))
        #expect(converted.iccProfile == nil && converted.width == planes.width && converted.subsampling == subsampling)
        let expected = try Self.reference(planes, profile: profile)
        let luma = difference(converted.luma.pixels, expected.luma)
        let cb = difference(converted.blueDifference.pixels, expected.cb), cr = difference(converted.redDifference.pixels, expected.cr)
        print("planes \(subsampling): Y max \(luma.max) mean \(luma.mean); Cb max \(cb.max); Cr max \(cr.max)")
        #expect(luma.max <= 1 && cb.max <= 1 && cr.max <= 1)
        #expect(luma.mean <= 0.1)
        // The test can fail: unconverted, the planes are far from the reference.
        #expect(difference(planes.luma.pixels, expected.luma).mean > 1)
    }

    @Test("padded source rows convert as tight ones do, into tight planes, and the source's bytes are only read")
    func paddedRows() throws {
        let p3 = try Reference.displayP3()
        var tight = try Self.planes(.s420, seed: 21)
        tight.iccProfile = p3.bytes
        func padded(_ plane: Image) throws -> Image {
            var pixels = [UInt8]()
            for row in 0..<plane.height {
                pixels += plane.pixels[(row * plane.width)..<((row + 1) * plane.width)] + [UInt8](repeating: 0xA5, count: 13)
            }
            return try Image(width: plane.width, height: plane.height, pixelFormat: .gray8, bytesPerRow: plane.width + 13, pixels: pixels)
        }
        var wide = try YCbCrImage(
            luma: padded(tight.luma), blueDifference: padded(tight.blueDifference), redDifference: padded(tight.redDifference),
            subsampling: .s420)
        wide.iccProfile = p3.bytes
        let converter = LCMSColorConverter()
        let fromTight = try #require(try converter.convertPlanes(tight, .sRGB))
        let fromWide = try #require(try converter.convertPlanes(wide, .sRGB))
        #expect(fromWide.luma.pixels == fromTight.luma.pixels)
        #expect(fromWide.blueDifference.pixels == fromTight.blueDifference.pixels)
        #expect(fromWide.redDifference.pixels == fromTight.redDifference.pixels)
        #expect(fromWide.luma.bytesPerRow == wide.width && fromWide.blueDifference.bytesPerRow == wide.blueDifference.width)
        // The source's buffers (shared with nothing else here) hold what they held.
        let (lumaBefore, redBefore) = (try padded(tight.luma).pixels, try padded(tight.redDifference).pixels)
        #expect(wide.luma.pixels == lumaBefore && wide.redDifference.pixels == redBefore)
        #expect(fromTight.luma.pixels != tight.luma.pixels)
    }

    @Test("planes with no profile, or a profile the direct path does not take, answer nil and stay untouched")
    func notDirect() throws {
        let converter = LCMSColorConverter()
        var planes = try Self.planes(.s420, seed: 3)
        #expect(try converter.convertPlanes(planes, .sRGB) == nil)
        let p3 = try Reference.displayP3()
        let lut = try withExtendedLifetime(p3) { try Reference.Profile { clcms_profile_rgb_lut(p3.handle, 0, $0, $1) } }
        planes.iccProfile = lut.bytes
        #expect(try converter.convertPlanes(planes, .sRGB) == nil)
        planes.iccProfile = p3.bytes
        #expect(try LCMSColorConverter(allowsDirectPath: false).convertPlanes(planes, .sRGB) == nil)
        #expect(converter.conversionCounts == .init(direct: 0, lcms: 0))
    }
}
