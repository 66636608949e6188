import AnimationReference
import CoderJXL
import CoderPNG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// Every JPEG XL row of REFERENCE-FORMATS.tsv (libjxl 0.7's djxl, or libjxl 0.12 for the rows
/// the README names), decoded by Debian's libjxl 0.7 through `JXLCoder`.
///
/// The table shows images oriented (libjxl applies the codestream orientation); `JXLCoder`
/// reports orientation and never applies it, so every comparison applies ours first. Frame 0 is
/// compared for animations. Rows outside the exceptions match the table's hash exactly.
@Suite("JPEG XL against REFERENCE-FORMATS.tsv")
struct ReferenceTests {
    static let rows = FormatsReferenceRow.jxlRows.filter { $0.path.hasPrefix("jxl/") }

    enum Exception: Equatable {
        /// Lossy (VarDCT, noise synthesis) rows whose table hash comes from djxl 0.7 on the
        /// machine that made the table: libjxl's float rendering follows the SIMD target it runs
        /// on, so the last bit of some samples moves between machines. Ours equals djxl 0.7 run on
        /// this machine byte for byte (same library, same target); the README allows ±2.
        case lossyRoundingOfAnotherMachine
        /// libjxl 0.12 rows (pillow-jxl-plugin): the plugin asks libjxl for 16-bit samples of
        /// these 9…16-bit images and Pillow keeps their high byte; libjxl's own 8-bit output
        /// rounds instead. Our 16-bit decode's high byte matches the table exactly.
        case highByteOfSixteenBits
        /// The row is the conformance suite's straight-alpha `alpha_premultiplied.ref.png`
        /// (libjxl 0.12 returns premultiplied colour): ours, un-premultiplied by libjxl 0.7, is
        /// within 1 of it in every sample.
        case straightAlphaReferencePNG
        /// 12-bit layers blended by libjxl 0.12 (the row) and 0.7 differ (up to 92 of 255 where
        /// alpha is not 0; measured with pillow-jxl-plugin). No other reference for 0.7 exists
        /// (djxl 0.7 cannot write this file); the size is checked.
        case blendedDifferentlyByLibjxl07
        /// libjxl 0.7 refuses the file (djxl 0.7 fails the same way; 0.12 reads it): `splines.jxl`
        /// (the frame fails to render) and the 64-bit box size of
        /// `square-extended-size-container.jxl`. A typed `corruptData`.
        case refusedByLibjxl07
    }

    static let exceptions: [String: Exception] = [
        "jxl/conformance/animation_icos4d.jxl": .lossyRoundingOfAnotherMachine,
        "jxl/conformance/bench_oriented_brg.jxl": .lossyRoundingOfAnotherMachine,
        "jxl/conformance/noise.jxl": .lossyRoundingOfAnotherMachine,
        "jxl/conformance/opsin_inverse.jxl": .lossyRoundingOfAnotherMachine,
        "jxl/conformance/patches.jxl": .lossyRoundingOfAnotherMachine,
        "jxl/conformance/alpha_nonpremultiplied.jxl": .highByteOfSixteenBits,
        "jxl/conformance/spot.jxl": .highByteOfSixteenBits,
        "jxl/conformance/sunset_logo.jxl": .highByteOfSixteenBits,
        "jxl/libjxl-testdata/pq_gradient.jxl": .highByteOfSixteenBits,
        "jxl/conformance/alpha_premultiplied.jxl": .straightAlphaReferencePNG,
        "jxl/conformance/blendmodes.jxl": .blendedDifferentlyByLibjxl07,
        "jxl/libjxl-testdata/splines.jxl": .refusedByLibjxl07,
        "jxl/libjxl-testdata/square-extended-size-container.jxl": .refusedByLibjxl07,
    ]

    @Test func tableCoversEveryJPEGXL() {
        #expect(Self.rows.count == 25)
        #expect(Set(Self.exceptions.keys).isSubset(of: Set(Self.rows.map(\.path))))
        // The README's nine libjxl 0.12 rows are the exceptions of the three 0.12 kinds, plus
        // noise (0.12's row; ours is compared with 0.7) and alpha_triangles (matches exactly).
        let kinds: [Exception] = [.highByteOfSixteenBits, .straightAlphaReferencePNG, .blendedDifferentlyByLibjxl07, .refusedByLibjxl07]
        #expect(Self.exceptions.values.filter { kinds.contains($0) }.count == 8)
    }

    /// The image as shown (orientation applied), 8-bit RGBA.
    static func shown(_ image: Image) -> (pixels: [UInt8], width: Int, height: Int) {
        applying(image.orientation, to: image.rgba8Pixels(), width: image.width, height: image.height)
    }

    @Test("decodes to the reference hash, or as each exception explains", arguments: rows)
    func matchesReference(_ row: FormatsReferenceRow) throws {
        let data = try TestData.data(row.path)
        let coder = JXLCoder()
        if Self.exceptions[row.path] == .refusedByLibjxl07 {
            let error = #expect(throws: ImageKernelError.self) { try coder.decode(data, options: DecodeOptions()) }
            #expect(error?.code == .corruptData && error?.plugin == "CoderJXL")
            return
        }
        let image = try coder.decode(data, options: DecodeOptions())
        #expect(image.sourceFormat == .jxl && image.isConsistent)
        #expect(image.frameCount == row.pageCount)
        let shown = Self.shown(image)
        #expect(shown.width == row.width && shown.height == row.height)
        switch Self.exceptions[row.path] {
        case .lossyRoundingOfAnotherMachine:
            try #require(LibjxlTools.available, "djxl (libjxl-tools) is needed: scripts/deps.sh installs it")
            let djxl = try #require(try LibjxlTools.djxlRGBA8(TestData.url(row.path)))
            #expect(djxl.width == shown.width && djxl.height == shown.height)
            #expect(djxl.pixels == shown.pixels, "ours differs from djxl 0.7 on this machine")
        case .highByteOfSixteenBits:
            let deep = try coder.decode(data, options: DecodeOptions(preserve16Bit: true))
            #expect(deep.pixelFormat.bitsPerComponent == 16)
            #expect(sha256Hex(Self.shown(deep).pixels) == row.sha256)
        case .straightAlphaReferencePNG:
            let png = try PNGCoder().decode(TestData.data("jxl/conformance/alpha_premultiplied.ref.png"), options: DecodeOptions())
            let reference = png.rgba8Pixels()
            #expect(sha256Hex(reference) == row.sha256)
            #expect(zip(reference, shown.pixels).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        case .blendedDifferentlyByLibjxl07:
            #expect(image.pixelFormat == .rgba8)
        case .refusedByLibjxl07:
            Issue.record("handled above")
        case nil:
            #expect(sha256Hex(shown.pixels) == row.sha256)
        }
    }
}
