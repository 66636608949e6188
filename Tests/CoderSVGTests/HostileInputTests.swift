import AnimationReference
import CoderSVG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("SVG: hostile, cut and broken documents")
struct HostileInputTests {
    static let brokenFiles: [String] = {
        let root = TestData.url("broken/svg")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return names.filter { $0.hasSuffix(".svg") }.sorted().map { "broken/svg/\($0)" }
    }()

    @Test func corpusHasHostileSVGs() {
        #expect(Self.brokenFiles.count == 9)
    }

    /// Each file does what its `expect=` token says, within the hang guard and without a large
    /// allocation: refused with a typed error, or rendered to librsvg's hash (which shows that
    /// nothing external was drawn: a green square, a blue circle).
    @Test("every hostile file is refused or rendered as its row expects", arguments: brokenFiles)
    func hostileFileIsHandled(_ path: String) throws {
        let row = try #require(FormatsReference.svgRows.first { $0.path == path })
        let data = try TestData.data(path)
        #expect(SVGCoder().canDecode(data))
        let (outcome, bytes) = try MemoryProbe.peakGrowth { withinHangGuard(path) { render(data) } }
        switch (row.expectation, outcome) {
        case ("refused", .failure(let error)), ("refused-or-rendered-no-fetch", .failure(let error)):
            #expect(error.plugin == "CoderSVG" && error.stage == .decode && error.code != .internalError, "\(path): \(error)")
        case (let expect?, .success(let image)) where expect.hasPrefix("rendered-no-fetch"):
            #expect(image.width == row.width && image.height == row.height)
            #expect(sha256Hex(image.rgba8Pixels()) == row.sha256, "\(path)")
        default:
            Issue.record("\(path): expected \(row.expectation ?? "?"), got \(outcome)")
        }
        #expect(MemoryProbe.underSanitizer || bytes < 256 << 20, "\(path): peak growth \(bytes) bytes")
    }

    @Test func billionLaughsIsRefusedByLibxml2() throws {
        let error = #expect(throws: ImageKernelError.self) { try SVGCoder().decode(try TestData.data("broken/svg/billion-laughs.svg"), options: DecodeOptions()) }
        #expect(error?.code == .tooLarge && error?.message.contains("entity") == true, "\(String(describing: error))")
    }

    @Test func useFanOutIsRefusedBeforeRendering() throws {
        // librsvg itself gives up after 500000 clones, seconds later; the budget refuses at once.
        let error = #expect(throws: ImageKernelError.self) { try SVGCoder().decode(try TestData.data("broken/svg/use-bomb.svg"), options: DecodeOptions()) }
        #expect(error?.code == .tooLarge && error?.message.contains("budget") == true, "\(String(describing: error))")
    }

    @Test func hugeCanvasIsRefusedOrRenderedAtTheBox() throws {
        let data = try TestData.data("broken/svg/huge-canvas.svg")
        let error = #expect(throws: ImageKernelError.self) { try SVGCoder().decode(data, options: DecodeOptions()) }
        #expect(error?.code == .pixelLimitExceeded)
        // Past the scale-down ceiling (10^10 > 4 × 256 M) even with scaleDownLargeImages.
        let scaled = #expect(throws: ImageKernelError.self) { try SVGCoder().decode(data, options: DecodeOptions(scaleDownLargeImages: true)) }
        #expect(scaled?.code == .pixelLimitExceeded)
        // A thumbnail is drawn at the box: the intrinsic size costs nothing.
        let (thumbnail, bytes) = try MemoryProbe.peakGrowth {
            try SVGCoder().decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256)))
        }
        #expect(thumbnail.width == 256 && thumbnail.height == 256)
        #expect(MemoryProbe.underSanitizer || bytes < 64 << 20, "peak growth \(bytes) bytes")
    }

    /// The 10 smallest SVGs of the corpus (outside broken/).
    static let smallestFiles = TestData.smallestFiles(FormatsReference.svgRows.filter { $0.path.hasPrefix("svg/") }.map(\.path))

    @Test("every prefix gives a typed error or an image", arguments: smallestFiles)
    func everyPrefixIsHandled(_ path: String) throws {
        let data = try TestData.data(path)
        for length in 0..<data.count {
            switch render(data.prefix(length)) {
            case .success(let image):
                #expect(image.isConsistent, "\(path) cut to \(length) bytes")
            case .failure(let error):
                #expect(error.plugin == "CoderSVG" && error.stage == .decode && error.code != .internalError, "\(path) cut to \(length): \(error)")
            }
        }
    }
}
