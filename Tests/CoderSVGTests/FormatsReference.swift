import CoderSVG
import Testing
import Foundation
import ImageKernel
import ImageKernelTestSupport

/// An SVG row of `Tests/Corpora/REFERENCE-FORMATS.tsv` (see the corpus README, "TIFF, BMP, ICO,
/// JPEG XL, SVG"): librsvg 2.54.7's own rendering (`rsvg-convert`, 96 dpi, natural size) as
/// 8-bit RGBA, or an `ERROR` row.
typealias FormatsReference = FormatsReferenceRow

extension FormatsReferenceRow {
    /// The SVG rows (`svg/` and `broken/svg/`).
    static let svgRows: [FormatsReferenceRow] = TestData.formatsReference(under: ["svg/", "broken/svg/"])

    /// The `expect=` token of a `broken/svg/` row.
    var expectation: String? { token("expect") }
}

/// Runs `body` and fails the test when it takes longer than `seconds`: a guard against a hang,
/// never a speed test (the limit is far above what any case needs).
func withinHangGuard<T>(_ what: String, seconds: Double = 5, _ body: () throws -> T) rethrows -> T {
    let start = ContinuousClock.now
    let result = try body()
    let elapsed = ContinuousClock.now - start
    if elapsed > .seconds(seconds) { Issue.record("\(what) took \(elapsed), past the \(seconds) s hang guard") }
    return result
}

/// A decode that never throws out of the test: the image or the typed error.
func render(_ data: Data, _ options: DecodeOptions = DecodeOptions(), coder: SVGCoder = SVGCoder()) -> Result<Image, ImageKernelError> {
    Result { () throws(ImageKernelError) -> Image in try coder.decode(data, options: options) }
}

/// The RGBA8 pixel at (x, y).
func pixel(_ image: Image, _ x: Int, _ y: Int) -> [UInt8] {
    let offset = y * image.bytesPerRow + x * 4
    return Array(image.pixels[offset..<offset + 4])
}
