import AnimationReference
import CoderTIFF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// Every TIFF row of REFERENCE-FORMATS.tsv (Pillow 13 with libtiff 4.7.2; libtiff's own decode
/// for the ERROR rows that carry one), decoded by Debian's libtiff 4.5 through `TIFFCoder`.
///
/// Hashes are of ``Image/rgba8Pixels()`` (16-bit samples keep their high byte, as the table's
/// `16bit-gray:high-byte`). Every row outside the exceptions below matches exactly — including
/// the 16-bit rows (±1 allowed by the README, not needed), CMYK (Pillow's naive formula is the
/// one `TIFFCoder` uses), associated alpha (un-premultiplied with Pillow's truncating division)
/// and JPEG-in-TIFF (±2 allowed, not needed: both sides use libjpeg-turbo's integer IDCT).
@Suite("TIFF against REFERENCE-FORMATS.tsv")
struct ReferenceTests {
    static let rows = FormatsReference.tiffRows

    /// Rows where the reference's conventions are not the kernel's, or where Debian's libtiff differs.
    enum Exception: Equatable {
        /// Pillow shows these CCITT files with their Orientation tag applied (its libtiff decode;
        /// 5–8 come out transposed, 590x88). The kernel reports orientation and never applies
        /// it: our pixels with ``Image/orientation`` applied equal the reference exactly.
        case orientationAppliedByReference
        /// 12-bit gray: Pillow keeps the raw 12-bit value in a 16-bit sample (0…4095, so its high
        /// byte is v >> 8); `TIFFCoder` widens 12 bits to 16 by bit replication. The reference is
        /// matched exactly by taking our sample's top 4 bits (v16 >> 12 = v >> 8).
        case twelveBitWidened
        /// Signed 16-bit gray: Pillow's mode I clips to 0…255 on conversion; `TIFFCoder` clips
        /// at 0 and keeps 16 bits. min(255, v) of our samples matches the reference exactly.
        case signedClippedByPillow
        /// CIE Lab: libtiff's TIFFRGBAImage converts Lab (D65 white, its own gamma) differently
        /// from Pillow's Lab to sRGB (the README measures up to 49 apart). Checked for size only.
        case labConvertedByLibtiff
        /// libtiff issue #513, a Group 3 decoding bug fixed in 4.5.1: Debian's 4.5.0 decodes this
        /// file differently from Pillow's 4.7.2 (the README says trust 4.7.2). Checked for size.
        case libtiff450Group3Bug
        /// Pillow refuses it (32-bit samples) and so does TIFFRGBAImage: a typed `unsupported`.
        case refusedLikeLibtiff
    }

    static let exceptions: [String: Exception] = {
        var table: [String: Exception] = [
            "broken/tiff/pillow/crash-74d2a78403a5a59db1fb0a2b8735ac068a75f6e3.tif": .orientationAppliedByReference,
            "tiff/pillow/12bit.cropped.tif": .twelveBitWidened,
            "tiff/pillow/16bit.s.tif": .signedClippedByPillow,
            "tiff/pillow/hopper.Lab.tif": .labConvertedByLibtiff,
            "tiff/libtiff/testfax3_bug_513.tiff": .libtiff450Group3Bug,
            "tiff/pillow/hopper_unknown_pixel_mode.tif": .refusedLikeLibtiff,
        ]
        for n in 2...8 { table["tiff/pillow/g4_orientation_\(n).tif"] = .orientationAppliedByReference }
        return table
    }()

    /// Decoded rows: the image rows plus the ERROR rows with a libtiff target.
    static let decodedRows = rows.filter { !$0.isError || $0.libtiffSHA256 != nil }

    @Test func tableCoversEveryTIFF() {
        #expect(Self.rows.filter { $0.path.hasPrefix("tiff/") }.count == 93)
        #expect(Self.rows.filter { $0.path.hasPrefix("broken/tiff/") }.count == 20)
        #expect(Set(Self.exceptions.keys).isSubset(of: Set(Self.rows.map(\.path))))
    }

    @Test("decodes to the reference hash, or as each exception explains", arguments: decodedRows)
    func matchesReference(_ row: FormatsReference) throws {
        let data = try TestData.data(row.path)
        // 16-bit samples kept, so the 12-bit and signed exceptions can look at them.
        let image = try TIFFCoder().decode(data, options: DecodeOptions(preserve16Bit: true))
        #expect(image.sourceFormat == .tiff && image.isConsistent)
        let rgba = image.rgba8Pixels()
        let expected = row.libtiffSHA256 ?? row.sha256
        switch Self.exceptions[row.path] {
        case .orientationAppliedByReference:
            let shown = applying(image.orientation, to: rgba, width: image.width, height: image.height)
            #expect(image.orientation.rawValue > 1)
            #expect(shown.width == row.width && shown.height == row.height)
            #expect(sha256Hex(shown.pixels) == expected)
        case .twelveBitWidened:
            #expect(image.pixelFormat == .gray16)
            #expect(sha256Hex(gray(image) { UInt8($0 >> 12) }) == expected)
        case .signedClippedByPillow:
            #expect(image.pixelFormat == .gray16)
            #expect(sha256Hex(gray(image) { UInt8(min(255, $0)) }) == expected)
        case .labConvertedByLibtiff, .libtiff450Group3Bug:
            #expect(image.width == row.width && image.height == row.height)
        case .refusedLikeLibtiff:
            Issue.record("an ERROR row without a target is not decoded here")
        case nil:
            if !row.isError { #expect(image.width == row.width && image.height == row.height) }
            #expect(sha256Hex(rgba) == expected)
            // The default decode (16-bit samples narrowed to their high byte) matches too.
            let narrow = try TIFFCoder().decode(data, options: DecodeOptions())
            #expect(narrow.pixelFormat.bitsPerComponent == 8 && sha256Hex(narrow.rgba8Pixels()) == expected)
        }
    }

    @Test func pillowLimitsWithoutATargetAreTypedErrors() throws {
        for row in Self.rows where row.isError && row.libtiffSHA256 == nil && row.path.hasPrefix("tiff/") {
            #expect(Self.exceptions[row.path] == .refusedLikeLibtiff, "\(row.path)")
            let error = #expect(throws: ImageKernelError.self) { try TIFFCoder().decode(try TestData.data(row.path), options: DecodeOptions()) }
            #expect(error?.code == .unsupported && error?.plugin == "CoderTIFF")
        }
    }

    /// A gray16 image's samples mapped to 8-bit gray, as RGBA.
    private func gray(_ image: Image, _ map: (UInt16) -> UInt8) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(image.width * image.height * 4)
        image.pixels.withUnsafeBytes { raw in
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let v = map(raw.loadUnaligned(fromByteOffset: y * image.bytesPerRow + x * 2, as: UInt16.self))
                    out += [v, v, v, 255]
                }
            }
        }
        return out
    }
}
