import ColorLCMS
import ImageKernel
import Testing

/// The planes path is the RGB direct path, bit for bit: each pixel's R′G′B′ (libjpeg's integer
/// formulas) converted by ``LCMSColorConverter/convert(_:_:)`` on the direct path, then libjpeg's
/// integer Y′, and the integer Cb and Cr of each block's mean. A rewrite of the planes kernel
/// (staged, vectorised, per CPU) must keep every byte.
@Suite("Y′CbCr planes against the RGB direct path, byte for byte")
struct PlanesExactnessTests {
    @Test("every byte of the converted planes is the RGB direct path's", arguments: [
        YCbCrImage.Subsampling.s420, .s422, .none,
    ])
    func exact(subsampling: YCbCrImage.Subsampling) throws {
        let p3 = try LCMSColorConverter.displayP3Profile()
        var planes = try PlanesConversionTests.planes(subsampling, width: 157, height: 93, seed: 29)
        planes.iccProfile = p3
        let converter = LCMSColorConverter()
        let converted = try #require(try converter.convertPlanes(planes, .sRGB))
        let (width, height, s, chromaWidth) = (planes.width, planes.height, planes.subsampling, planes.blueDifference.width)
        func clamp(_ v: Int) -> UInt8 { UInt8(max(0, min(255, v))) }
        var rgb = [UInt8]()
        for y in 0..<height {
            for x in 0..<width {
                let c = (y / s.vertical) * chromaWidth + x / s.horizontal
                let u = Int(planes.blueDifference.pixels[c]) - 128, v = Int(planes.redDifference.pixels[c]) - 128
                let l = Int(planes.luma.pixels[y * width + x])
                let dr: Int = (91881 * v + 32768) >> 16, dg: Int = (-22554 * u - 46802 * v + 32768) >> 16
                let db: Int = (116130 * u + 32768) >> 16
                rgb += [clamp(l + dr), clamp(l + dg), clamp(l + db)]
            }
        }
        var image = try Image(width: width, height: height, pixelFormat: .rgb8, pixels: rgb)
        image.iccProfile = p3
        let out = try converter.convert(image, .sRGB).pixels.map(Int.init)
        #expect(converter.conversionCounts == .init(direct: 2, lcms: 0))
        var luma = [UInt8]()
        for p in 0..<(width * height) {
            let weighted: Int = 19595 * out[p * 3] + 38470 * out[p * 3 + 1] + 7471 * out[p * 3 + 2]
            luma.append(UInt8((weighted + 32768) >> 16))
        }
        var cb = [UInt8](), cr = [UInt8]()
        for cy in 0..<planes.blueDifference.height {
            for cx in 0..<chromaWidth {
                var (r, g, b, n) = (0, 0, 0, 0)
                for y in (cy * s.vertical)..<min(height, (cy + 1) * s.vertical) {
                    for x in (cx * s.horizontal)..<min(width, (cx + 1) * s.horizontal) {
                        let p = (y * width + x) * 3
                        r += out[p]
                        g += out[p + 1]
                        b += out[p + 2]
                        n += 1
                    }
                }
                let shift = 16 + (n == 4 ? 2 : n == 2 ? 1 : 0)
                let offset: Int = (128 << shift) + (1 << (shift - 1))
                let blue: Int = -11059 * r - 21709 * g + 32768 * b
                let red: Int = 32768 * r - 27439 * g - 5329 * b
                cb.append(clamp((blue + offset) >> shift))
                cr.append(clamp((red + offset) >> shift))
            }
        }
        // Counts of differing bytes (a failure prints these, not the planes).
        func differing(_ a: [UInt8], _ b: [UInt8]) -> Int { a.count == b.count ? zip(a, b).filter { $0 != $1 }.count : -1 }
        #expect(differing(converted.luma.pixels, luma) == 0)
        #expect(differing(converted.blueDifference.pixels, cb) == 0)
        #expect(differing(converted.redDifference.pixels, cr) == 0)
        // The test can fail: the planes before conversion differ.
        #expect(differing(planes.luma.pixels, luma) > 0)
    }
}
