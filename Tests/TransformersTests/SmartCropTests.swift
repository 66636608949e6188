import ImageKernel
import Testing
import Transformers

/// Smart and focus-point placement on synthetic images whose subject is known.
@Suite("Smart crop and focus points")
struct SmartCropTests {
    /// A `width`×`height` RGB image of a dull, slightly noisy gray with a `side`×`side` subject of
    /// saturated stripes whose top-left corner is at `x, y`.
    static func scene(width: Int, height: Int, subjectAt x: Int, _ y: Int, side: Int) throws -> Image {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var state: UInt32 = 12345
        for row in 0..<height {
            for column in 0..<width {
                state = state &* 1_664_525 &+ 1_013_904_223
                let i = (row * width + column) * 3
                let inside = column >= x && column < x + side && row >= y && row < y + side
                if inside {
                    let stripe = (column / 3 + row / 3) % 2 == 0
                    pixels[i] = stripe ? 230 : 40
                    pixels[i + 1] = stripe ? 40 : 200
                    pixels[i + 2] = 60
                } else {
                    let gray = UInt8(120 + Int(state >> 29))
                    pixels[i] = gray
                    pixels[i + 1] = gray
                    pixels[i + 2] = gray
                }
            }
        }
        return try Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels)
    }

    /// An image whose pixel at `x, y` is `(x, y, 0)`, so a crop's first pixel tells its origin.
    static func coordinates(width: Int, height: Int) throws -> Image {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                pixels[(y * width + x) * 3] = UInt8(x)
                pixels[(y * width + x) * 3 + 1] = UInt8(y)
            }
        }
        return try Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels)
    }

    /// The crop origin, read back from a crop of ``coordinates(width:height:)``.
    static func origin(_ image: Image) -> (Int, Int) { (sample(image, 0, 0, 0), sample(image, 0, 0, 1)) }

    @Test(arguments: [(150, 40), (10, 50), (100, 5), (170, 70)])
    func smartCropKeepsTheSubjectOfALandscape(_ position: (Int, Int)) throws {
        let image = try Self.scene(width: 200, height: 100, subjectAt: position.0, position.1, side: 30)
        let crop = try TransformSpec(parsing: "crop:60:60:smart").transform(image)
        #expect(crop.width == 60 && crop.height == 60)
        // The subject's 30x30 stripes are all in the window: 450 saturated red pixels (230, 40, 60).
        var red = 0
        for y in 0..<60 { for x in 0..<60 where sample(crop, x, y, 0) == 230 && sample(crop, x, y, 1) == 40 { red += 1 } }
        #expect(red == 450, "subject at \(position)")
    }

    @Test func smartCropKeepsTheSubjectOfAPortrait() throws {
        let image = try Self.scene(width: 90, height: 240, subjectAt: 30, 12, side: 30)
        let crop = try CropTransformer(.placed(width: 90, height: 90, placement: .smart)).transform(image)
        var red = 0
        for y in 0..<90 { for x in 0..<90 where sample(crop, x, y, 0) == 230 && sample(crop, x, y, 1) == 40 { red += 1 } }
        #expect(red == 450)
    }

    @Test func smartCropOfAnImageWithNothingToSeeIsCentred() throws {
        // A smooth ramp of dull colour (chroma under 48 levels, no edges): every window scores 0.
        let image = try Self.coordinates(width: 40, height: 20)
        #expect(Self.origin(try TransformSpec(parsing: "crop:10:10:smart").transform(image)) == (15, 5))
        #expect(Self.origin(try TransformSpec(parsing: "crop:10:10").transform(image)) == (15, 5))
    }

    @Test func smartFillResizesAroundTheSubject() throws {
        let image = try Self.scene(width: 400, height: 100, subjectAt: 330, 30, side: 40)
        let smart = try TransformSpec(parsing: "resize:fill:50:50:smart").transform(image)
        let centred = try TransformSpec(parsing: "resize:fill:50:50").transform(image)
        func redness(_ image: Image) -> Int {
            var total = 0
            for y in 0..<image.height { for x in 0..<image.width { total += max(0, sample(image, x, y, 0) - sample(image, x, y, 2)) } }
            return total
        }
        #expect(smart.width == 50 && smart.height == 50)
        #expect(redness(smart) > 20 * max(1, redness(centred)))
    }

    @Test func focusPointCentresTheWindowAndStaysInside() throws {
        let image = try Self.coordinates(width: 100, height: 50)
        func origin(_ spec: String) throws -> (Int, Int) { Self.origin(try TransformSpec(parsing: spec).transform(image)) }
        #expect(try origin("crop:20:20:fp:0.5:0.5") == (40, 15))
        #expect(try origin("crop:20:20:fp:0.9:0.5") == (80, 15))
        #expect(try origin("crop:20:20:fp:0.3:0.6") == (20, 20))
        #expect(try origin("crop:20:20:fp:0:0") == (0, 0))
        #expect(try origin("crop:20:20:fp:1:1") == (80, 30))
        // A fill at scale 1 is an exact crop placed the same way.
        let strip = try Self.coordinates(width: 100, height: 20)
        #expect(Self.origin(try TransformSpec(parsing: "resize:fill:20:20:fp:0.9:0.5").transform(strip)) == (80, 0))
    }

    @Test func smartPlacementWorksOnEveryPixelFormat() throws {
        for format in [PixelFormat.gray8, .grayAlpha8, .rgba8, .rgba8Premultiplied, .rgb16, .rgba16] {
            let image = try noiseImage(width: 50, height: 30, format: format)
            let crop = try TransformSpec(parsing: "crop:20:20:smart").transform(image)
            #expect(crop.width == 20 && crop.height == 20 && crop.pixelFormat == format)
            let fill = try TransformSpec(parsing: "resize:fill:10:10:smart").transform(image)
            #expect(fill.width == 10 && fill.pixelFormat == format)
        }
    }

    @Test func thePlanarResizeChoosesTheSameSmartWindowAsTheRGBOne() throws {
        let image = try Self.scene(width: 400, height: 100, subjectAt: 330, 30, side: 40)
        // Full-range Y′CbCr (JPEG's) planes of the scene, 4:4:4.
        var luma = [UInt8](), cb = [UInt8](), cr = [UInt8]()
        for i in stride(from: 0, to: image.pixels.count, by: 3) {
            let r = Double(image.pixels[i]), g = Double(image.pixels[i + 1]), b = Double(image.pixels[i + 2])
            let y = 0.299 * r + 0.587 * g + 0.114 * b
            luma.append(UInt8(y.rounded()))
            cb.append(UInt8(max(0, min(255, (128 + (b - y) / 1.772).rounded()))))
            cr.append(UInt8(max(0, min(255, (128 + (r - y) / 1.402).rounded()))))
        }
        func plane(_ samples: [UInt8]) throws -> Image { try Image(width: 400, height: 100, pixelFormat: .gray8, pixels: samples) }
        let planes = try YCbCrImage(luma: plane(luma), blueDifference: plane(cb), redDifference: plane(cr), subsampling: YCbCrImage.Subsampling(horizontal: 1, vertical: 1)!)
        let resize = ResizeTransformer(.fill, width: 50, height: 50, placement: .smart)
        let planar = try resize.transform(planes, subsampling: YCbCrImage.Subsampling(horizontal: 1, vertical: 1)!)
        let rgb = try resize.transform(image)
        // The same window: the planar luma matches the RGB result's luma within rounding.
        var worst = 0
        for y in 0..<50 {
            for x in 0..<50 {
                let expected = 0.299 * Double(sample(rgb, x, y, 0)) + 0.587 * Double(sample(rgb, x, y, 1)) + 0.114 * Double(sample(rgb, x, y, 2))
                worst = max(worst, abs(Int(planar.luma.pixels[y * planar.luma.bytesPerRow + x]) - Int(expected.rounded())))
            }
        }
        #expect(worst <= 3)
    }
}
