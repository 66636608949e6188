import CoderJPEG
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

@Suite("The pixel limit is enforced from the header, before pixels are allocated")
struct PixelLimitTests {
    let coder = JPEGCoder()
    let testorig = "jpeg/libjpeg-turbo/testorig.jpg"  // 227x149 = 33,823 pixels

    @Test("a header over the limit is refused with pixelLimitExceeded")
    func headerOverLimitIsRefused() throws {
        let data = try TestData.data(testorig)
        let error = #expect(throws: ImageKernelError.self) { try coder.decode(data, options: DecodeOptions(pixelLimit: 10_000)) }
        #expect(error?.code == .pixelLimitExceeded && error?.plugin == "CoderJPEG")
        #expect(error?.message.contains("227x149") == true)
        // At the limit exactly, it decodes.
        #expect(try coder.decode(data, options: DecodeOptions(pixelLimit: 227 * 149)).width == 227)
    }

    @Test("scaleDownLargeImages decodes at the largest N/8 that fits the limit")
    func scaleDownPicksLargestFittingScale() throws {
        let data = try TestData.data(testorig)
        let image = try coder.decode(data, options: DecodeOptions(pixelLimit: 10_000, scaleDownLargeImages: true))
        // 4/8 gives 114x75 = 8,550 (fits); 5/8 gives 142x94 = 13,348 (does not).
        #expect(image.width == 114 && image.height == 75)
    }

    @Test("scaleDownLargeImages reaches a slow N/8 size from a fast scale, never over the limit")
    func scaleDownUsesFastScale() throws {
        let data = try TestData.data(testorig)
        // 7/8 gives 199x131 = 26,069 (fits 30,000); 8/8 does not. Decoded at 8/8 a strip at a
        // time and area-averaged to 199x131, so the full-size pixels never exist whole.
        let options = DecodeOptions(pixelLimit: 30_000, scaleDownLargeImages: true)
        let image = try coder.decode(data, options: options)
        #expect(image.width == 199 && image.height == 131)
        #expect(image.width * image.height <= 30_000)
        // The progressive decoder keeps its whole canvas, so it decodes at 7/8 itself.
        let progressive = coder.makeProgressiveDecoder(options: options)
        let final = try #require(try progressive.append(data))
        #expect(final.width == 199 && final.height == 131)
        // 3/8 (86x56 = 4,816) is reached from 4/8 the same way.
        let small = try coder.decode(data, options: DecodeOptions(pixelLimit: 5_000, scaleDownLargeImages: true))
        #expect(small.width == 86 && small.height == 56)
    }

    @Test("scaleDownLargeImages still refuses when even 1/8 is over the limit")
    func scaleDownRefusesWhenEighthIsOver() throws {
        let data = try TestData.data(testorig)
        let error = #expect(throws: ImageKernelError.self) {
            try coder.decode(data, options: DecodeOptions(pixelLimit: 400, scaleDownLargeImages: true))
        }
        #expect(error?.code == .pixelLimitExceeded)
    }

    @Test("a thumbnail of an over-limit image is refused unless scaleDownLargeImages")
    func thumbnailDoesNotBypassLimit() throws {
        let data = try TestData.data(testorig)
        #expect(throws: ImageKernelError.self) {
            try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 20, height: 20), pixelLimit: 10_000))
        }
        let image = try coder.decode(
            data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 20, height: 20), pixelLimit: 10_000, scaleDownLargeImages: true))
        #expect(image.width == 20 && image.height == 13)
    }

    /// A small file whose SOF claims 20000x20000 (400 megapixels, over the default 256): refused
    /// from the header alone, without the 1.2 GB buffer ever being touched.
    @Test("a decompression bomb header is refused by the default limit without allocating")
    func bombHeaderIsRefusedWithoutAllocating() throws {
        var bytes = [UInt8](try Synthetic.jpeg(width: 64, height: 64))
        let sof = try #require((0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        // SOF0: FF C0, length (2), precision (1), height (2), width (2).
        bytes[sof + 5] = 0x4E; bytes[sof + 6] = 0x20
        bytes[sof + 7] = 0x4E; bytes[sof + 8] = 0x20
        let data = Data(bytes)
        let (outcome, peak) = try MemoryProbe.peakGrowth { () -> ImageKernelError? in
            do {
                _ = try coder.decode(data, options: DecodeOptions())
                return nil
            } catch let error as ImageKernelError {
                return error
            }
        }
        #expect(outcome?.code == .pixelLimitExceeded)
        #expect(outcome?.message.contains("20000x20000") == true)
        #expect(peak < 64 << 20, "peak growth \(peak) bytes")
        // With scaleDownLargeImages and a 10-megapixel limit the same header decodes at 1/8
        // (2500x2500; 2/8 would be 25 megapixels). The entropy data is far too short for that:
        // libjpeg pads it, so a padded image or a typed error are both acceptable.
        do {
            let image = try coder.decode(data, options: DecodeOptions(pixelLimit: 10_000_000, scaleDownLargeImages: true))
            #expect(image.width == 2500 && image.height == 2500)
        } catch {
            #expect([.corruptData, .truncated].contains(error.code))
        }
    }
}
