import CoderSVG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// Documents that would keep librsvg 2.54 busy for seconds to minutes (measured with
/// `rsvg-convert` on a 2000² canvas: 200 nested blurs and a 100000-octave turbulence past 30 s,
/// 250 nested opacity groups 8.7 s, a morphology of radius 100 19 s) end at once in `tooLarge`,
/// while the same constructs at ordinary sizes render.
@Suite("SVG: the work budget")
struct BudgetTests {
    static func document(_ body: String, size: Int = 2000) -> Data {
        Data("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(size)\" height=\"\(size)\" viewBox=\"0 0 200 200\">\(body)</svg>".utf8)
    }

    static let rect = "<rect width=\"200\" height=\"200\" fill=\"green\""

    /// name → a document over the budget.
    static let expensive: [(String, Data)] = [
        ("200 nested blurs", document("<filter id='f'><feGaussianBlur stdDeviation='5'/></filter>" + String(repeating: "<g filter='url(#f)'>", count: 200) + rect + "/>" + String(repeating: "</g>", count: 200))),
        ("250 nested opacity groups", document(String(repeating: "<g opacity='0.99'>", count: 250) + rect + "/>" + String(repeating: "</g>", count: 250))),
        ("100000-octave turbulence", document("<filter id='f'><feTurbulence baseFrequency='0.05' numOctaves='100000'/></filter>" + rect + " filter='url(#f)'/>")),
        ("morphology of radius 100", document("<filter id='f'><feMorphology radius='100'/></filter>" + rect + " filter='url(#f)'/>")),
        ("2000 blur primitives", document("<filter id='f'>" + String(repeating: "<feGaussianBlur stdDeviation='3'/>", count: 2000) + "</filter>" + rect + " filter='url(#f)'/>")),
        ("3000 uses of a blurred element", document("<filter id='f'><feGaussianBlur stdDeviation='3'/></filter><g id='a'>" + rect + " filter='url(#f)'/></g>" + String(repeating: "<use href='#a'/>", count: 3000))),
        ("a filter set by a stylesheet class", document("<style>.b { filter: url(#f) }</style><filter id='f'>" + String(repeating: "<feGaussianBlur stdDeviation='3'/>", count: 30) + "</filter>" + String(repeating: "<rect class='b' width='9' height='9'/>", count: 40))),
        ("markers on every vertex", document("<marker id='m'>" + String(repeating: "<g opacity='0.5'><rect width='1' height='1'/></g>", count: 20) + "</marker><path marker-mid='url(#m)' d='M0 0" + String(repeating: " L1 1", count: 2000) + "'/>")),
        ("a filter hidden in an entity", Data(("<?xml version='1.0'?><!DOCTYPE svg [<!ENTITY f 'url(#f)'>]>" + String(decoding: document("<filter id='f'>" + String(repeating: "<feGaussianBlur stdDeviation='3'/>", count: 40) + "</filter>" + String(repeating: "<rect width='9' height='9' filter='&f;'/>", count: 40)), as: UTF8.self)).utf8)),
    ]

    @Test("over the budget: tooLarge at once", arguments: expensive.map(\.0))
    func expensiveDocumentIsRefused(_ name: String) throws {
        let data = try #require(Self.expensive.first { $0.0 == name }?.1)
        let outcome = withinHangGuard(name) { render(data) }
        guard case .failure(let error) = outcome else {
            Issue.record("\(name) rendered")
            return
        }
        #expect(error.code == .tooLarge && error.plugin == "CoderSVG", "\(name): \(error)")
    }

    /// The same constructs at a thumbnail's size, or in ordinary numbers, render.
    @Test func ordinaryUseOfTheSameConstructsRenders() throws {
        let thumbnail = DecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64))
        for (name, data) in Self.expensive where name.hasPrefix("250 nested") || name.hasPrefix("morphology") {
            // Priced per canvas pixel: at 64² they fit.
            if case .failure(let error) = render(data, thumbnail) { Issue.record("\(name) as a thumbnail: \(error)") }
        }
        let blur = Self.document("<filter id='f'><feGaussianBlur stdDeviation='5'/></filter>" + Self.rect + " filter='url(#f)'/>", size: 1000)
        let image = try SVGCoder().decode(blur, options: DecodeOptions())
        #expect(image.width == 1000 && pixel(image, 500, 500) == [0, 128, 0, 255])
        let opacity = Self.document(String(repeating: Self.rect + " opacity='0.5'/>", count: 20), size: 1000)
        #expect(try SVGCoder().decode(opacity, options: DecodeOptions()).width == 1000)
    }

    @Test func budgetIsTheCoderLimit() throws {
        let blur = Self.document("<filter id='f'><feGaussianBlur stdDeviation='5'/></filter>" + Self.rect + " filter='url(#f)'/>", size: 1000)
        let error = #expect(throws: ImageKernelError.self) {
            try SVGCoder(limits: .init(workBudget: 10_000_000)).decode(blur, options: DecodeOptions())
        }
        #expect(error?.code == .tooLarge)
    }

    /// librsvg 2.54 panics — and aborts the process — on a convolution kernel larger than 20×20.
    @Test func convolutionPastLibrsvgsLimitIsRefused() throws {
        let kernel = String(repeating: "1 ", count: 21 * 21)
        let error = #expect(throws: ImageKernelError.self) {
            try SVGCoder().decode(
                Self.document("<filter id='f'><feConvolveMatrix order='21' kernelMatrix='\(kernel)'/></filter>" + Self.rect + " filter='url(#f)'/>", size: 100),
                options: DecodeOptions())
        }
        #expect(error?.code == .unsupported)
        let small = String(repeating: "1 ", count: 9)
        let image = try SVGCoder().decode(
            Self.document("<filter id='f'><feConvolveMatrix order='3' kernelMatrix='\(small)'/></filter>" + Self.rect + " filter='url(#f)'/>", size: 100),
            options: DecodeOptions())
        #expect(image.width == 100)
    }

    @Test func nestedDocumentsInDataURLsAreRefused() throws {
        let inner = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#.utf8).base64EncodedString()
        let error = #expect(throws: ImageKernelError.self) {
            try SVGCoder().decode(Self.document("<image width='10' height='10' href='data:image/svg+xml;base64,\(inner)'/>", size: 10), options: DecodeOptions())
        }
        #expect(error?.code == .unsupported)
        // A 30000×30000 PNG header in a data: URL is priced at its pixels (gdk-pixbuf would allocate 3.6 GB).
        let bomb = "iVBORw0KGgoAAAANSUhEUgAAdTAAAHUwCAYAAABmJ/i6AAAAAElFTkSuQmCC"
        let pixels = #expect(throws: ImageKernelError.self) {
            try SVGCoder().decode(Self.document("<image width='10' height='10' href='data:image/png;base64,\(bomb)'/>", size: 10), options: DecodeOptions())
        }
        #expect(pixels?.code == .tooLarge)
    }

    @Test func markupInEntitiesIsRefused() throws {
        let svg = "<?xml version='1.0'?><!DOCTYPE svg [<!ENTITY g '<g opacity=\"0.5\">'>]><svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'></svg>"
        let error = #expect(throws: ImageKernelError.self) { try SVGCoder().decode(Data(svg.utf8), options: DecodeOptions()) }
        #expect(error?.code == .unsupported)
    }
}
