import CoderHEIF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("HEIF thumbnails")
struct ThumbnailTests {
    let coder = HEIFCoder()

    @Test func embeddedThumbnailServesSmallBoxes() throws {
        // example.heic (1280x854) stores a 320x212 thumbnail.
        let data = try TestData.data("heif/libheif/example.heic")
        let small = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 200, height: 200)))
        #expect(small.width == 200 && small.height == 133)
        #expect(small.decoderNotes[Image.MetadataKey.thumbnailSource] == "embedded")
        let large = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 640, height: 640)))
        #expect(large.width == 640 && large.height == 427)
        #expect(large.decoderNotes[Image.MetadataKey.thumbnailSource] == "downscaled")
        let full = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 0, height: 0)))
        #expect(full.width == 1280 && full.decoderNotes.isEmpty, "\(full.width)x\(full.height) \(full.decoderNotes)")
    }

    @Test func embeddedThumbnailOptionDecodesTheStoredThumbnailInsteadOfTheImage() throws {
        let data = try TestData.data("heif/libheif/example.heic")
        var options = DecodeOptions()
        options.embeddedThumbnail = true
        let thumb = try coder.decode(data, options: options)
        #expect(thumb.width == 320 && thumb.height == 212, "\(thumb.width)x\(thumb.height)")
        #expect(thumb.decoderNotes[Image.MetadataKey.thumbnailSource] == "embedded")
        let fromFull = try coder.decode(data, options: DecodeOptions()).areaDownscaled(to: PixelSize(width: 320, height: 212))
        #expect(Fixtures.psnr(thumb, fromFull) > 25, "the thumbnail shows the image")
        // A box fits the thumbnail's own size (its shape, not the image's).
        options.thumbnailPixelSize = PixelSize(width: 160, height: 160)
        let boxed = try coder.decode(data, options: options)
        #expect(boxed.width == 160 && abs(boxed.height - 106) <= 1, "\(boxed.width)x\(boxed.height)")
        // A file without a thumbnail decodes its image.
        var plain = DecodeOptions()
        plain.embeddedThumbnail = true
        let hopper = try coder.decode(try TestData.data("heif/pillow/hopper.heif"), options: plain)
        #expect(hopper.width == 128 && hopper.decoderNotes[Image.MetadataKey.thumbnailSource] == nil)
    }

    @Test func thumbnailFromEmbeddedIsCloseToDownscaledFull() throws {
        let data = try TestData.data("heif/libheif/example.heic")
        let box = PixelSize(width: 160, height: 160)
        let fromThumb = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: box))
        let fromFull = try coder.decode(data, options: DecodeOptions()).areaDownscaled(to: PixelSize(width: fromThumb.width, height: fromThumb.height))
        #expect(Fixtures.psnr(fromThumb, fromFull) > 25)
    }

    @Test func encoderStoresAThumbnailThatDecodesUse() throws {
        let image = try Fixtures.gradient(width: 640, height: 480, alpha: true)
        let data = try coder.encode(image, as: .heic, options: EncodeOptions(quality: 0.8), thumbnailFitting: 160)
        let full = try coder.decode(data, options: DecodeOptions())
        #expect(full.width == 640 && full.height == 480, "\(full.width)x\(full.height) \(full.decoderNotes)")
        let thumb = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100)))
        #expect(thumb.width == 100 && thumb.height == 75 && thumb.pixelFormat == .rgba8)
        #expect(thumb.decoderNotes[Image.MetadataKey.thumbnailSource] == "embedded")
    }
}
