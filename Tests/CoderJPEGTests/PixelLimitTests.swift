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
        // 3/8 (86x56 = 4,816) is reached from 4/8 the same way (the scale-down ceiling raised to
        // the source, which is over 4 × 5,000 pixels).
        let small = try coder.decode(data, options: DecodeOptions(pixelLimit: 5_000, scaleDownLargeImages: true, scaleDownSourcePixelLimit: 33_823))
        #expect(small.width == 86 && small.height == 56)
    }

    @Test("scaleDownLargeImages still refuses when even 1/8 is over the limit")
    func scaleDownRefusesWhenEighthIsOver() throws {
        let data = try TestData.data(testorig)
        let error = #expect(throws: ImageKernelError.self) {
            try coder.decode(data, options: DecodeOptions(pixelLimit: 400, scaleDownLargeImages: true, scaleDownSourcePixelLimit: 33_823))
        }
        #expect(error?.code == .pixelLimitExceeded && error?.message.contains("1/8") == true)
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
        let data = try Self.jpegDeclaring(width: 20000, height: 20000)
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
        // With scaleDownLargeImages and a 10-megapixel limit the 400-megapixel source is over the
        // default scale-down ceiling (4 × 10 megapixels): refused from the header too.
        let scaled = #expect(throws: ImageKernelError.self) {
            try coder.decode(data, options: DecodeOptions(pixelLimit: 10_000_000, scaleDownLargeImages: true))
        }
        #expect(scaled?.code == .pixelLimitExceeded && scaled?.message.contains("ceiling") == true)
        // With the ceiling raised to the source it decodes at 1/8 (2500x2500; 2/8 would be 25
        // megapixels). The entropy data is far too short for that: libjpeg pads it, so a padded
        // image or a typed error are both acceptable.
        do {
            let options = DecodeOptions(pixelLimit: 10_000_000, scaleDownLargeImages: true, scaleDownSourcePixelLimit: 400_000_000)
            let image = try coder.decode(data, options: options)
            #expect(image.width == 2500 && image.height == 2500)
        } catch {
            #expect([.corruptData, .truncated].contains(error.code))
        }
    }

    /// A small file whose SOF claims 40000x40000 (1.6 gigapixels, over the default ceiling of
    /// 4 × 256 megapixels): with scaleDownLargeImages it would decode at 1/8 (5000x5000), entropy
    /// decoding every block of the source; it is refused from the header instead.
    @Test("scaleDownLargeImages refuses a header over the scale-down ceiling")
    func scaleDownRefusesAHeaderOverTheCeiling() throws {
        let data = try Self.jpegDeclaring(width: 40000, height: 40000)
        let error = #expect(throws: ImageKernelError.self) {
            try coder.decode(data, options: DecodeOptions(scaleDownLargeImages: true))
        }
        #expect(error?.code == .pixelLimitExceeded && error?.plugin == "CoderJPEG")
        #expect(error?.message.contains("ceiling") == true)
        // The progressive decoder plans from the same header.
        let progressive = coder.makeProgressiveDecoder(options: DecodeOptions(scaleDownLargeImages: true))
        let fromPartial = #expect(throws: ImageKernelError.self) { _ = try progressive.append(data) }
        #expect(fromPartial?.code == .pixelLimitExceeded)
    }

    @Test("scaleDownLargeImages still scales a source just within the ceiling")
    func scaleDownWithinTheCeiling() throws {
        // 227x149 = 33,823 pixels; a pixel limit of 8,456 puts the default ceiling at 33,824.
        let data = try TestData.data(testorig)
        let image = try coder.decode(data, options: DecodeOptions(pixelLimit: 8_456, scaleDownLargeImages: true))
        #expect(image.width == 86 && image.height == 56)  // 3/8, the largest N/8 within the limit
        let error = #expect(throws: ImageKernelError.self) {
            try coder.decode(data, options: DecodeOptions(pixelLimit: 8_455, scaleDownLargeImages: true))
        }
        #expect(error?.code == .pixelLimitExceeded && error?.message.contains("ceiling") == true)
    }

    /// A small 64x64 JPEG whose SOF0 claims `width`×`height` (its entropy data is for 64x64).
    static func jpegDeclaring(width: UInt16, height: UInt16) throws -> Data {
        var bytes = [UInt8](try Synthetic.jpeg(width: 64, height: 64))
        let sof = try #require((0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        // SOF0: FF C0, length (2), precision (1), height (2), width (2).
        bytes[sof + 5] = UInt8(height >> 8); bytes[sof + 6] = UInt8(height & 0xFF)
        bytes[sof + 7] = UInt8(width >> 8); bytes[sof + 8] = UInt8(width & 0xFF)
        return Data(bytes)
    }
}
