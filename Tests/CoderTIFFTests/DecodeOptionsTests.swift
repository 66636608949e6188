import CoderTIFF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("TIFF decode options, pages and orientation")
struct DecodeOptionsTests {
    @Test(arguments: 1...8)
    func orientationIsReportedNotApplied(_ value: Int) throws {
        let image = try TIFFCoder().decode(try TestData.data("tiff/pillow/g4_orientation_\(value).tif"), options: DecodeOptions())
        #expect(image.orientation == ExifOrientation(rawValue: value))
        // Stored size, not the displayed one: 5–8 are stored 88x590 and shown 590x88.
        #expect(value <= 4 ? image.width == 590 && image.height == 88 : image.width == 88 && image.height == 590)
    }

    @Test func pageZeroByDefaultAndAllPagesOnRequest() throws {
        let data = try TestData.data("tiff/pillow/multipage.tiff")
        #expect(try TIFFCoder().decode(data, options: DecodeOptions()).frameCount == 1)
        // Pages 0 and 1 are 10x10, page 2 is 20x20: not a frame, counted as skipped.
        let all = try TIFFCoder(pages: .all).decode(data, options: DecodeOptions())
        #expect(all.frameCount == 2)
        #expect(all.decoderNotes["tiff.pages.skipped"] == "1")
        #expect(all.allFrames.allSatisfy { $0.image.width == 10 && $0.image.height == 10 })
        #expect(Set(all.allFrames.map { $0.image.pixels }).count > 1, "the pages differ")
        #expect(try TIFFCoder(pages: .all).decode(data, options: DecodeOptions(firstFrameOnly: true)).frameCount == 1)
        // The kernel's per-decode option asks the same of a default coder.
        var options = DecodeOptions()
        options.allPages = true
        #expect(try TIFFCoder().decode(data, options: options).frameCount == 2)
    }

    @Test func pagesOfAnotherSizeAreSkippedAndCounted() throws {
        // Page 0 is 128x128 RGB; the other four differ in size or layout.
        let image = try TIFFCoder(pages: .all).decode(try TestData.data("tiff/derived/hopper_multipage_mixed.tif"), options: DecodeOptions())
        let skipped = Int(image.decoderNotes["tiff.pages.skipped"] ?? "0") ?? 0
        #expect(image.frameCount + skipped == 5)
        #expect(image.allFrames.allSatisfy { $0.image.width == 128 && $0.image.pixelFormat == image.pixelFormat })
    }

    @Test(arguments: [
        ("tiff/derived/hopper_rgb16_lzw_planar.tif", PixelFormat.rgb16, PixelFormat.rgb8),
        ("tiff/pillow/16bit.MM.deflate.tif", .gray16, .gray8),
        ("tiff/derived/hopper_rgba16_unassoc_zip.tif", .rgba16, .rgba8),
        ("tiff/pillow/12bit.cropped.tif", .gray16, .gray8),
    ])
    func sixteenBitSamplesAreKeptOnRequestElseTheirHighByte(_ path: String, _ wide: PixelFormat, _ narrow: PixelFormat) throws {
        let data = try TestData.data(path)
        let kept = try TIFFCoder().decode(data, options: DecodeOptions(preserve16Bit: true))
        let stripped = try TIFFCoder().decode(data, options: DecodeOptions())
        #expect(kept.pixelFormat == wide && stripped.pixelFormat == narrow)
        #expect(kept.rgba8Pixels() == stripped.rgba8Pixels(), "the 8-bit decode is the 16-bit one's high byte")
    }

    @Test func thumbnailIsAreaDownscaled() throws {
        let data = try TestData.data("tiff/pillow/g4-multi.tiff")  // 3307x4677 fax page
        let image = try TIFFCoder().decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256)))
        #expect(PixelSize(width: image.width, height: image.height) == PixelSize.thumbnail(of: PixelSize(width: 3307, height: 4677), fitting: PixelSize(width: 256, height: 256)))
        #expect(image.decoderNotes[Image.MetadataKey.thumbnailSource] == "downscaled")
    }

    @Test func bigTIFFAndBothByteOrdersAreSniffed() throws {
        for path in ["tiff/pillow/hopper_bigtiff.tif", "tiff/derived/hopper_bigtiff_zip_tiled.tif", "tiff/derived/hopper_be_lzw.tif", "tiff/pillow/hopper.tif"] {
            let data = try TestData.data(path)
            #expect(TIFFCoder().canDecode(data), "\(path)")
        }
    }
}

@Suite("TIFF thumbnails streamed while decoding")
struct StreamedThumbnailTests {
    /// The streamed box average equals a full decode followed by the kernel's areaDownscaled,
    /// for every directly read layout (strips, tiles, planar, alpha, 16-bit, CMYK).
    @Test(arguments: [
        "tiff/pillow/hopper.tif", "tiff/derived/hopper_lzw_tiled64.tif", "tiff/derived/hopper_zip_tiled_planar.tif",
        "tiff/derived/hopper_rgba_unassoc.tif", "tiff/derived/hopper_gray_alpha.tif", "tiff/derived/hopper_rgba16_unassoc_zip.tif",
        "tiff/derived/hopper_cmyk_lzw.tif", "tiff/derived/hopper_raw_rows7.tif", "tiff/pillow/12bit.cropped.tif",
    ])
    func streamedThumbnailEqualsFullDecodeDownscaled(_ path: String) throws {
        let data = try TestData.data(path)
        for preserve in [false, true] {
            let full = try TIFFCoder().decode(data, options: DecodeOptions(preserve16Bit: preserve))
            for box in [PixelSize(width: 37, height: 29), PixelSize(width: 64, height: 64), PixelSize(width: 1, height: 1), PixelSize(width: 127, height: 500)] {
                let target = PixelSize.thumbnail(of: PixelSize(width: full.width, height: full.height), fitting: box)
                let thumbnail = try TIFFCoder().decode(data, options: DecodeOptions(thumbnailPixelSize: box, preserve16Bit: preserve))
                let expected = try full.areaDownscaled(to: target)
                #expect(thumbnail.pixelFormat == expected.pixelFormat && thumbnail.width == target.width && thumbnail.height == target.height)
                #expect(thumbnail.pixels == expected.pixels, "\(path) box \(box) preserve16Bit \(preserve)")
            }
        }
    }
}
