import AnimationReference
import CoderSVG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// Every SVG row of REFERENCE-FORMATS.tsv that librsvg renders, against librsvg 2.54.7's own
/// rendering (`rsvg-convert`): `SVGCoder` links the same librsvg, so every row matches exactly —
/// cairo's un-premultiplication included.
///
/// The README names where librsvg is not resvg (whose PNGs sit beside the files). Those rows
/// still equal librsvg's hash here; the exceptions say what the pixels show instead of resvg's:
@Suite("SVG against REFERENCE-FORMATS.tsv")
struct ReferenceTests {
    static let rows = FormatsReference.svgRows

    enum Exception: Equatable {
        /// librsvg 2.54 does not know `feDropShadow` (added in 2.56?): the element is dropped and
        /// the filter shows its input only, so no shadow (41.6 mean difference from resvg's PNG).
        /// Checked: the hash, and a pixel where resvg draws the shadow is transparent.
        case librsvgLacksFeDropShadow
        /// feMorphology's radius is scaled differently from resvg's (13.2 mean difference).
        /// Checked: the hash.
        case morphologyRadiusDiffers
    }

    static let exceptions: [String: Exception] = [
        "svg/resvg/filters/feDropShadow/with-offset.svg": .librsvgLacksFeDropShadow,
        "svg/resvg/filters/feMorphology/simple-case.svg": .morphologyRadiusDiffers,
    ]

    static let renderedRows = rows.filter { !$0.isError }

    @Test func tableCoversEverySVG() {
        #expect(Self.rows.filter { $0.path.hasPrefix("svg/") }.count == 45)
        #expect(Self.rows.filter { $0.path.hasPrefix("broken/svg/") }.count == 9)
        #expect(Set(Self.exceptions.keys).isSubset(of: Set(Self.rows.map(\.path))))
    }

    @Test("renders to librsvg's hash", arguments: renderedRows)
    func matchesReference(_ row: FormatsReference) throws {
        let image = try SVGCoder().decode(try TestData.data(row.path), options: DecodeOptions())
        #expect(image.sourceFormat == .svg && image.pixelFormat == .rgba8 && image.isConsistent)
        #expect(image.width == row.width && image.height == row.height)
        #expect(sha256Hex(image.rgba8Pixels()) == row.sha256)
        if Self.exceptions[row.path] == .librsvgLacksFeDropShadow {
            // resvg's shadow is offset down and right of the square; librsvg leaves it empty.
            #expect(pixel(image, 140, 170)[3] == 0)
        }
    }

    @Test func everyResvgRowRendersWithoutAnError() {
        #expect(Self.rows.filter { $0.path.hasPrefix("svg/") && $0.isError }.isEmpty)
    }
}
