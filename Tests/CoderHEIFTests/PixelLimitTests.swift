import CoderHEIF
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("HEIF pixel limit")
struct PixelLimitTests {
    @Test func limitBelowThePrimaryImageRefusesIt() throws {
        let data = try TestData.data("heif/libheif/example.heic")
        #expect(throws: ImageKernelError.self) {
            try HEIFCoder().decode(data, options: DecodeOptions(pixelLimit: 1280 * 854 - 1))
        }
        do {
            _ = try HEIFCoder().decode(data, options: DecodeOptions(pixelLimit: 1280 * 854 - 1))
        } catch {
            #expect(error.code == .pixelLimitExceeded)
        }
        #expect(try HEIFCoder().decode(data, options: DecodeOptions(pixelLimit: 1280 * 854)).width == 1280)
    }

    /// A grid whose item data declares 65535x65535 while every `ispe` stays small: refused by the
    /// box scan before libheif reads the grid (and so before it allocates the canvas).
    @Test func lyingGridIsRefusedBeforeDecode() throws {
        var data = try TestData.data("heif/pillow_heif/RGB_8__29x100.heif")
        let grid: [UInt8] = [0, 0, 0, 0, 0, 0x1D, 0, 0x64]  // v0, 16-bit sizes, 1x1 tiles, 29x100
        let at = try #require(data.firstRange(of: Data(grid)))
        data.replaceSubrange((at.lowerBound + 4)..<at.upperBound, with: [0xFF, 0xFF, 0xFF, 0xFF])
        do {
            _ = try HEIFCoder().decode(data, options: DecodeOptions())
            Issue.record("the lying grid decoded")
        } catch {
            #expect(error.code == .pixelLimitExceeded && error.message.contains("grid"), "\(error)")
        }
    }

    @Test func hugeIspeIsRefusedBeforeDecode() throws {
        var data = try TestData.data("heif/libheif/example.heic")
        let ispe = try #require(data.firstRange(of: Data("ispe".utf8)))
        data.replaceSubrange((ispe.upperBound + 4)..<(ispe.upperBound + 12), with: [0, 0, 0xFF, 0xFF, 0, 0, 0xFF, 0xFF])
        do {
            _ = try HEIFCoder().decode(data, options: DecodeOptions())
            Issue.record("a 65535x65535 ispe decoded")
        } catch {
            #expect(error.code == .pixelLimitExceeded, "\(error)")
        }
    }

    /// A crop must decode its whole coded image, so the coded size counts against the limit
    /// (beyond the block padding every coded image may carry).
    @Test func aCropIsLimitedByTheCodedImageItDecodes() throws {
        let data = try TestData.data("heif/av1-avif-Link-U/kimono.crop.avif")
        do {
            _ = try HEIFCoder().decode(data, options: DecodeOptions(pixelLimit: 385 * 330))
            Issue.record("a crop of a 722x1024 image decoded under a 385x330 limit")
        } catch {
            #expect(error.code == .pixelLimitExceeded, "\(error)")
        }
        #expect(try HEIFCoder().decode(data, options: DecodeOptions(pixelLimit: 722 * 1024)).width == 385)
    }
}
