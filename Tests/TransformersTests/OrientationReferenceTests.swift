import AnimationReference
import CoderJPEG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing
import Transformers

/// Exact results for orient, rotate 90/180/270, flip and crop on the EXIF orientation samples,
/// against the `sha256_rgba_exif` column of Tests/Corpora/REFERENCE.tsv (Pillow's decode
/// with the orientation applied).
@Suite("Orientation, rotation, flip and crop are exact")
struct OrientationReferenceTests {
    struct Sample: Sendable, CustomStringConvertible {
        var path: String, sha256: String, sha256Oriented: String
        var description: String { path }
    }

    static let samples: [Sample] = {
        guard let table = try? String(contentsOf: TestData.url("REFERENCE.tsv"), encoding: .utf8) else { return [] }
        return table.split(separator: "\n").compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count > 7, f[0].hasPrefix("exif-orientation/"), f[0].hasSuffix(".jpg") else { return nil }
            return Sample(path: f[0], sha256: f[5], sha256Oriented: f[6])
        }
    }()

    /// Rotations and flips that display each stored orientation upright.
    static let equivalentChains: [ExifOrientation: String] = [
        .up: "rotate:0", .upMirrored: "flip:h", .down: "rotate:180", .downMirrored: "flip:v",
        .leftMirrored: "rotate:90/flip:h", .right: "rotate:90", .rightMirrored: "rotate:270/flip:h", .left: "rotate:270",
    ]

    static func decode(_ sample: Sample) throws -> Image {
        let image = try JPEGCoder().decode(try TestData.data(sample.path), options: DecodeOptions())
        // The decode itself must match, or the orientation checks below prove nothing.
        try #require(sha256Hex(image.rgba8Pixels()) == sample.sha256, "\(sample.path): the decoded pixels differ from Pillow's")
        return image
    }

    @Test func everyOrientationIsCovered() {
        #expect(Self.samples.count >= 8 + 18)
    }

    @Test(arguments: samples)
    func orientMatchesPillowsOrientedPixels(_ sample: Sample) throws {
        let image = try Self.decode(sample)
        let oriented = try OrientTransformer().transform(image)
        #expect(sha256Hex(oriented.rgba8Pixels()) == sample.sha256Oriented)
        #expect(oriented.orientation == .up)
        #expect(oriented.pixelFormat == image.pixelFormat)
        #expect(oriented.iccProfile == image.iccProfile)
    }

    @Test(arguments: samples)
    func rotationsAndFlipsGiveTheSameExactPixels(_ sample: Sample) throws {
        let image = try Self.decode(sample)
        let chain = try TransformSpec(parsing: Self.equivalentChains[image.orientation]!)
        #expect(sha256Hex(try chain.transform(image).rgba8Pixels()) == sample.sha256Oriented, "\(chain.key) on orientation \(image.orientation)")
    }

    @Test func cropCutsExactlyTheRectangle() throws {
        let sample = try #require(Self.samples.first { $0.path.hasSuffix("Landscape_6.jpg") })
        let image = try OrientTransformer().transform(try Self.decode(sample))
        let (x, y, w, h) = (37, 21, 101, 55)
        let cropped = try CropTransformer(.rect(x: x, y: y, width: w, height: h)).transform(image)
        let all = image.rgba8Pixels()
        var expected: [UInt8] = []
        for row in y..<(y + h) { expected += all[(row * image.width + x) * 4..<(row * image.width + x + w) * 4] }
        #expect(cropped.width == w && cropped.height == h)
        #expect(cropped.rgba8Pixels() == expected)
        // A size with a gravity: south-east keeps the bottom-right corner.
        let corner = try CropTransformer(.size(width: 10, height: 7, gravity: .southEast)).transform(image)
        let last = (image.height - 1) * image.width + image.width - 1
        #expect(Array(corner.rgba8Pixels().suffix(4)) == Array(all[last * 4..<last * 4 + 4]))
        #expect(sha256Hex(try CropTransformer(.rect(x: 0, y: 0, width: image.width, height: image.height)).transform(image).rgba8Pixels()) == sample.sha256Oriented)
    }

    @Test func aRectangleOutsideTheImageIsATypedError() throws {
        let image = try noiseImage(width: 10, height: 8, format: .rgb8)
        let error = Result { () throws(ImageKernelError) in try CropTransformer(.rect(x: 5, y: 0, width: 6, height: 8)).transform(image) }.error
        #expect(error?.stage == .transform && error?.code == .invalidArgument)
    }

    @Test func sixteenBitAndGrayImagesRotateExactly() throws {
        for format in [PixelFormat.gray16, .grayAlpha16, .rgba16, .gray8, .grayAlpha8] {
            let image = try noiseImage(width: 5, height: 3, format: format)
            let turned = try RotateTransformer(degrees: 90).transform(image)
            #expect(turned.width == 3 && turned.height == 5 && turned.pixelFormat == format)
            let back = try RotateTransformer(degrees: 270).transform(turned)
            #expect(back.pixels == image.pixels, "\(format)")
            let bpp = format.bytesPerPixel
            // Rotating clockwise puts the bottom-left source pixel at the top left.
            #expect(Array(turned.pixels[0..<bpp]) == Array(image.pixels[(2 * 5) * bpp..<(2 * 5 + 1) * bpp]), "\(format)")
        }
    }
}
