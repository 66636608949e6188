import Foundation
import ImageKernel
import Testing

/// `YCbCrImage.rgbImage()`: JFIF's full-range BT.601 matrix, each chroma sample over the luma
/// samples it covers.
@Suite("Y′CbCr planes to RGB")
struct YCbCrToRGBTests {
    static func plane(_ width: Int, _ height: Int, _ value: (Int, Int) -> Int) throws -> Image {
        var pixels = [UInt8]()
        for y in 0..<height { for x in 0..<width { pixels.append(UInt8(clamping: value(x, y))) } }
        return try Image(width: width, height: height, pixelFormat: .gray8, pixels: pixels)
    }

    /// The JFIF formula in floating point, rounded and clamped.
    static func reference(_ y: Int, _ cb: Int, _ cr: Int) -> [UInt8] {
        let l = Double(y), b = Double(cb) - 128, r = Double(cr) - 128
        return [l + 1.402 * r, l - 0.344136 * b - 0.714136 * r, l + 1.772 * b].map { UInt8(clamping: Int($0.rounded())) }
    }

    @Test("4:2:0 with odd sizes: every pixel within one level of the formula, chroma repeated", arguments: [
        (YCbCrImage.Subsampling.s420, 7, 5), (.s422, 6, 3), (.none, 4, 4),
    ])
    func matchesTheFormula(subsampling: YCbCrImage.Subsampling, width: Int, height: Int) throws {
        let chroma = subsampling.chromaSize(width: width, height: height)
        let luma = try Self.plane(width, height) { x, y in 16 + 37 * x + 11 * y }
        let cb = try Self.plane(chroma.width, chroma.height) { x, y in 40 + 50 * x + 30 * y }
        let cr = try Self.plane(chroma.width, chroma.height) { x, y in 220 - 45 * x - 20 * y }
        var planes = try YCbCrImage(luma: luma, blueDifference: cb, redDifference: cr, subsampling: subsampling, orientation: .right)
        planes.iccProfile = [1, 2, 3]
        let rgb = try planes.rgbImage()
        #expect(rgb.width == width && rgb.height == height && rgb.pixelFormat == .rgb8)
        #expect(rgb.orientation == .right && rgb.iccProfile == [1, 2, 3])
        for y in 0..<height {
            for x in 0..<width {
                let cx = x / subsampling.horizontal, cy = y / subsampling.vertical
                let expected = Self.reference(
                    Int(luma.pixels[y * width + x]), Int(cb.pixels[cy * chroma.width + cx]), Int(cr.pixels[cy * chroma.width + cx]))
                let got = Array(rgb.pixels[(y * width + x) * 3..<(y * width + x) * 3 + 3])
                #expect(zip(got, expected).allSatisfy { abs(Int($0) - Int($1)) <= 1 }, "(\(x), \(y)): \(got) vs \(expected)")
            }
        }
    }
}
