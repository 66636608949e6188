import CoderPNG
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

@Suite("Progressive decoding from partial data", .timeLimit(.minutes(1)))
struct ProgressiveDecodingTests {
    let coder = PNGCoder()

    /// Feeds `data` in `chunkSize` pieces and returns every image the decoder produced.
    func feed(_ data: Data, chunkSize: Int, options: DecodeOptions = DecodeOptions()) throws(ImageKernelError) -> [Image] {
        let decoder = coder.makeProgressiveDecoder(options: options)
        var images: [Image] = []
        var start = 0
        while start < data.count {
            let end = min(data.count, start + chunkSize)
            if let image = try decoder.append(data.subdata(in: start..<end)) { images.append(image) }
            start = end
        }
        return images
    }

    @Test("fed in chunks, every valid file ends with the one-shot image", arguments: ReferenceTable.exactPNGs)
    func progressiveEndsWithTheWholeImage(_ row: ReferenceRow) throws {
        let data = try TestData.data(row.path)
        let images = try feed(data, chunkSize: 61)
        let final = try #require(images.last)
        #expect(!final.isPreview)
        #expect(images.dropLast().allSatisfy { $0.isPreview })
        #expect(final == (try coder.decode(data, options: DecodeOptions())))
    }

    @Test func sequentialPreviewsHoldTheRowsDecodedSoFarAndZeroBelow() throws {
        let image = try makeImage(width: 64, height: 96, format: .rgba8, seed: 7)
        let data = try coder.encode(image, as: .png, options: EncodeOptions(compressionLevel: 1))
        let images = try feed(data, chunkSize: 512)
        let previews = images.filter(\.isPreview)
        #expect(previews.count >= 3)
        let rowBytes = image.bytesPerRow
        var lastDecodedRows = 0
        for preview in previews {
            #expect(preview.width == 64 && preview.height == 96 && preview.pixelFormat == .rgba8)
            let rows = (0..<96).map { Array(preview.pixels[$0 * rowBytes..<($0 + 1) * rowBytes]) }
            let decoded = rows.indices.first { rows[$0] != Array(image.pixels[$0 * rowBytes..<($0 + 1) * rowBytes]) } ?? 96
            #expect(rows[decoded...].allSatisfy { $0.allSatisfy { $0 == 0 } }, "rows below the decoded ones are transparent black")
            #expect(decoded > lastDecodedRows, "each preview shows more rows")
            lastDecodedRows = decoded
        }
        #expect(images.last == image.withSourceFormat(.png))
    }

    @Test func interlacedPreviewsStartAsCoarseBlocksOfTheWholeImage() throws {
        let image = try makeImage(width: 64, height: 64, format: .rgb8, seed: 3)
        let data = try coder.encode(image, as: .png, options: EncodeOptions(compressionLevel: 0, progressive: true))
        let images = try feed(data, chunkSize: 16)
        // The first preview that covers every row comes from Adam7's first pass (perhaps with a
        // little of the second): every pixel repeats the top-left pixel of its 8×8 block, or of
        // its 4×8 half-block once the second pass reaches it.
        let coarse = try #require(images.first { preview in
            (0..<64).allSatisfy { y in preview.pixels[y * 192..<(y + 1) * 192].contains { $0 != 0 } }
        })
        #expect(coarse.isPreview)
        #expect(coarse.pixels != image.pixels)
        func pixel(_ source: Image, _ x: Int, _ y: Int) -> ArraySlice<UInt8> { source.pixels[(y * 64 + x) * 3..<(y * 64 + x) * 3 + 3] }
        for y in 0..<64 {
            for x in 0..<64 {
                let value = pixel(coarse, x, y)
                #expect(value == pixel(image, x & ~7, y & ~7) || value == pixel(image, x & ~3, y & ~7), "pixel \(x),\(y)")
            }
        }
        #expect(images.last == image.withSourceFormat(.png))
    }

    @Test func previewsAreRationedWhenFedByteByByte() throws {
        let image = try makeImage(width: 48, height: 512, format: .gray8, seed: 5)
        let data = try coder.encode(image, as: .png, options: EncodeOptions(compressionLevel: 0))
        let images = try feed(data, chunkSize: 1)
        // One preview per 1/32 of the rows at most, however small the chunks.
        #expect(images.count >= 16 && images.count <= 34)
        #expect(images.last == image.withSourceFormat(.png))
    }

    @Test func bytesAfterIENDAreIgnored() throws {
        let data = try TestData.data("pngsuite/basn2c08.png")
        let decoder = coder.makeProgressiveDecoder(options: DecodeOptions())
        let final = try #require(try decoder.append(data + Data("trailing garbage".utf8)))
        #expect(!final.isPreview)
        #expect(try decoder.append(Data([1, 2, 3])) == nil)
    }

    @Test func nonPNGDataThrowsAndKeepsThrowing() throws {
        let decoder = coder.makeProgressiveDecoder(options: DecodeOptions())
        let first = kernelError { () throws(ImageKernelError) in try decoder.append(Data("GIF89a not a png at all".utf8)) }
        #expect(first?.code == .corruptData)
        let second = kernelError { () throws(ImageKernelError) in try decoder.append(TestData.dataOrEmpty("pngsuite/basn0g08.png")) }
        #expect(second?.code == .corruptData)
    }

    @Test func pixelLimitIsCheckedFromTheHeader() throws {
        let data = try TestData.data("pngsuite/basn6a08.png")  // 32×32
        let decoder = coder.makeProgressiveDecoder(options: DecodeOptions(pixelLimit: 1023))
        let error = kernelError { () throws(ImageKernelError) in try decoder.append(data) }
        #expect(error?.code == .pixelLimitExceeded)
        #expect(try feed(data, chunkSize: 100, options: DecodeOptions(pixelLimit: 1024)).last?.isPreview == false)
    }

    @Test func optionsApplyToPreviewsAndFinalImage() throws {
        let data = try TestData.data("pngsuite/basi6a16.png")  // 32×32 RGBA, 16-bit, interlaced
        let wide = try feed(data, chunkSize: 200, options: DecodeOptions(preserve16Bit: true))
        #expect(wide.allSatisfy { $0.pixelFormat == .rgba16 })
        let small = try feed(data, chunkSize: 200, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 8, height: 8)))
        #expect(small.count >= 2)
        #expect(small.allSatisfy { $0.width == 8 && $0.height == 8 })
    }
}

extension Image {
    func withSourceFormat(_ format: ImageFormat) -> Image {
        var copy = self
        copy.sourceFormat = format
        return copy
    }
}

extension TestData {
    static func dataOrEmpty(_ relative: String) -> Data { (try? data(relative)) ?? Data() }
}
