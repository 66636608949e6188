import AnimationReference
import CoderSVG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("SVG: the size a document renders at")
struct SizeTests {
    static func svg(_ attributes: String, _ body: String = "<rect width='100%' height='100%' fill='blue'/>") -> Data {
        Data("<svg xmlns='http://www.w3.org/2000/svg' \(attributes)>\(body)</svg>".utf8)
    }

    @Test func intrinsicSizeIsWidthAndHeightElseViewBoxElseTheDefault() throws {
        let coder = SVGCoder()
        let sized = try coder.decode(Self.svg("width='30' height='20' viewBox='0 0 300 200'"), options: DecodeOptions())
        #expect(sized.width == 30 && sized.height == 20)
        let units = try coder.decode(Self.svg("width='1in' height='0.5in'"), options: DecodeOptions())
        #expect(units.width == 96 && units.height == 48, "96 dpi")
        let viewBoxOnly = try coder.decode(Self.svg("viewBox='0 0 24 12'"), options: DecodeOptions())
        #expect(viewBoxOnly.width == 24 && viewBoxOnly.height == 12)
        let percent = try coder.decode(Self.svg("width='100%' height='100%' viewBox='0 0 40 10'"), options: DecodeOptions())
        #expect(percent.width == 40 && percent.height == 10)
        let neither = try coder.decode(Self.svg(""), options: DecodeOptions())
        #expect(neither.width == Int(SVGCoder.defaultSize) && neither.height == Int(SVGCoder.defaultSize))
        let fractional = try coder.decode(Self.svg("width='10.2' height='9.5'"), options: DecodeOptions())
        #expect(fractional.width == 11 && fractional.height == 10, "rounded up")
        // The document keeps its size in the rounded-up canvas, as rsvg-convert draws it: a
        // 10.5 px square covers half of the last column.
        let half = try coder.decode(Self.svg("width='10.5' height='10.5' viewBox='0 0 10 10'"), options: DecodeOptions())
        #expect(half.width == 11 && pixel(half, 9, 5) == [0, 0, 255, 255] && pixel(half, 10, 5) == [0, 0, 255, 128])
    }

    /// A zero side is an error; a negative one is invalid and librsvg ignores it (100%, so the
    /// default size, as a missing attribute).
    @Test func emptySizeIsATypedError() throws {
        let negative = try SVGCoder().decode(Self.svg("width='10' height='-5'"), options: DecodeOptions())
        #expect(negative.width == Int(SVGCoder.defaultSize) && negative.height == Int(SVGCoder.defaultSize))
        for attributes in ["width='0' height='10'", "width='10' height='0' viewBox='0 0 10 10'"] {
            guard case .failure(let error) = render(Self.svg(attributes)) else {
                Issue.record("\(attributes) rendered")
                continue
            }
            #expect(error.plugin == "CoderSVG" && error.code != .internalError, "\(error)")
        }
    }

    /// A 2:1 viewBox in a square viewport: xMidYMid meet letterboxes, slice crops, none stretches.
    @Test func preserveAspectRatioIsHonoured() throws {
        let body = "<rect width='200' height='100' fill='blue'/>"
        func decode(_ par: String) throws -> Image {
            try SVGCoder().decode(Self.svg("width='100' height='100' viewBox='0 0 200 100' preserveAspectRatio='\(par)'", body), options: DecodeOptions())
        }
        let meet = try decode("xMidYMid meet")
        #expect(pixel(meet, 50, 10)[3] == 0 && pixel(meet, 50, 50) == [0, 0, 255, 255] && pixel(meet, 50, 90)[3] == 0)
        let top = try decode("xMidYMin meet")
        #expect(pixel(top, 50, 10) == [0, 0, 255, 255] && pixel(top, 50, 90)[3] == 0)
        for par in ["xMidYMid slice", "none"] {
            let filled = try decode(par)
            #expect(pixel(filled, 50, 5) == [0, 0, 255, 255] && pixel(filled, 50, 95) == [0, 0, 255, 255], "\(par)")
        }
        // A thumbnail keeps it.
        let thumbnail = try SVGCoder().decode(
            Self.svg("width='1000' height='1000' viewBox='0 0 200 100'", body), options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 50)))
        #expect(thumbnail.width == 50 && pixel(thumbnail, 25, 3)[3] == 0 && pixel(thumbnail, 25, 25) == [0, 0, 255, 255])
    }

    /// A thumbnail is drawn at the box: its pixels equal the vector drawn at that size (a
    /// document whose own size is the box), not a downscale of the full raster.
    @Test func thumbnailIsRenderedAtTheBox() throws {
        let body = "<circle cx='50' cy='50' r='40' fill='none' stroke='black' stroke-width='1'/>"
        let large = Self.svg("width='4000' height='4000' viewBox='0 0 100 100'", body)
        let small = Self.svg("width='200' height='200' viewBox='0 0 100 100'", body)
        let thumbnail = try SVGCoder().decode(large, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 200, height: 200)))
        #expect(thumbnail.width == 200 && thumbnail.height == 200)
        #expect(thumbnail.decoderNotes[Image.MetadataKey.thumbnailSource] == "scaled-decode")
        let direct = try SVGCoder().decode(small, options: DecodeOptions())
        #expect(sha256Hex(thumbnail.rgba8Pixels()) == sha256Hex(direct.rgba8Pixels()))
        // A hairline stays a hairline: a downscaled 4000 px raster would have faded its 40 px
        // ring of 1/20 px strokes to almost nothing.
        #expect(thumbnail.pixels.enumerated().filter { $0.offset % 4 == 3 }.map(\.element).max() ?? 0 > 100)
        // Without a viewBox the document is scaled too, not cropped.
        let noViewBox = try SVGCoder().decode(
            Self.svg("width='400' height='400'", "<rect x='300' y='300' width='100' height='100' fill='blue'/>"),
            options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 40, height: 40)))
        #expect(noViewBox.width == 40 && pixel(noViewBox, 35, 35) == [0, 0, 255, 255] && pixel(noViewBox, 5, 5)[3] == 0)
    }

    @Test func shrinkOnLoadRendersAtTheResizesSizeSmallerOrLarger() throws {
        let data = Self.svg("width='1000' height='500'")
        let fit = try SVGCoder().decode(data, options: DecodeOptions(shrinkOnLoad: ShrinkOnLoad(width: 100, height: 100, mode: .fit)))
        #expect(fit.width == 100 && fit.height == 50)
        let fill = try SVGCoder().decode(data, options: DecodeOptions(shrinkOnLoad: ShrinkOnLoad(width: 100, height: 100, mode: .fill)))
        #expect(fill.width == 200 && fill.height == 100)
        let larger = try SVGCoder().decode(data, options: DecodeOptions(shrinkOnLoad: ShrinkOnLoad(width: 3000, height: 3000, mode: .fit)))
        #expect(larger.width == 3000 && larger.height == 1500, "a vector is drawn at the box, larger than its own size too")
        let fillLarger = try SVGCoder().decode(data, options: DecodeOptions(shrinkOnLoad: ShrinkOnLoad(width: 3000, height: 3000, mode: .fill)))
        #expect(fillLarger.width == 6000 && fillLarger.height == 3000)
    }

    @Test func scaleDownLargeImagesRendersWithinThePixelLimit() throws {
        let data = Self.svg("width='4000' height='2000'")
        let refused = #expect(throws: ImageKernelError.self) { try SVGCoder().decode(data, options: DecodeOptions(pixelLimit: 3_000_000)) }
        #expect(refused?.code == .pixelLimitExceeded)
        let image = try SVGCoder().decode(data, options: DecodeOptions(pixelLimit: 3_000_000, scaleDownLargeImages: true))
        #expect(image.pixelCount <= 3_000_000 && image.pixelCount > 2_900_000 && abs(image.width - 2 * image.height) <= 2)
        // Past the kernel's scale-down ceiling (4 × the limit) it is refused, as every coder does.
        let ceiling = #expect(throws: ImageKernelError.self) {
            try SVGCoder().decode(data, options: DecodeOptions(pixelLimit: 1_000_000, scaleDownLargeImages: true))
        }
        #expect(ceiling?.code == .pixelLimitExceeded)
        #expect(pixel(image, image.width - 1, image.height - 1) == [0, 0, 255, 255])
    }

    @Test func alphaIsStraight() throws {
        let image = try SVGCoder().decode(Self.svg("width='4' height='4'", "<rect width='4' height='4' fill='#ff8000' fill-opacity='0.5'/>"), options: DecodeOptions())
        #expect(image.pixelFormat == .rgba8 && !image.pixelFormat.isPremultiplied)
        #expect(pixel(image, 1, 1) == [255, 128, 0, 128])
    }

    /// The intrinsic canvas from the parse alone is the size a decode at the intrinsic size gives,
    /// and what is no SVG is the decode's typed error.
    @Test func intrinsicCanvasIsTheSizeOfADecodeAtTheIntrinsicSize() throws {
        let coder = SVGCoder()
        for attributes in ["width='30' height='20' viewBox='0 0 300 200'", "width='1in' height='0.5in'", "viewBox='0 0 24 12'",
                           "width='10.5' height='7.25'", ""] {
            let document = Self.svg(attributes)
            let decoded = try coder.decode(document, options: DecodeOptions())
            let canvas = try coder.intrinsicCanvas(of: document)
            #expect(canvas.width == decoded.width && canvas.height == decoded.height, "\(attributes)")
        }
        #expect(throws: ImageKernelError.self) { try coder.intrinsicCanvas(of: Data("<html></html>".utf8)) }
    }
}
