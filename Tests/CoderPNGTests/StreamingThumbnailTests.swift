import CoderPNG
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("Thumbnails averaged row by row as libpng delivers rows")
struct StreamingThumbnailTests {
    let coder = PNGCoder()

    static let formats: [PixelFormat] = [.gray8, .grayAlpha8, .rgb8, .rgba8, .gray16, .grayAlpha16, .rgb16, .rgba16]

    @Test("every output format's thumbnail is the box average of the full decode", arguments: formats)
    func thumbnailIsTheBoxAverageOfTheFullDecode(_ format: PixelFormat) throws {
        let image = try makeImage(width: 97, height: 61, format: format, seed: 7)
        let data = try coder.encode(image, as: .png, options: EncodeOptions())
        let options = DecodeOptions(preserve16Bit: true)
        let full = try coder.decode(data, options: options)
        for box in [PixelSize(width: 20, height: 20), PixelSize(width: 96, height: 96), PixelSize(width: 1, height: 1), PixelSize(width: 50, height: 7)] {
            var thumbnailOptions = options
            thumbnailOptions.thumbnailPixelSize = box
            let thumbnail = try coder.decode(data, options: thumbnailOptions)
            let size = PixelSize.thumbnail(of: PixelSize(width: 97, height: 61), fitting: box)
            #expect(thumbnail.width == size.width && thumbnail.height == size.height, "\(box)")
            #expect(thumbnail.pixelFormat == format && thumbnail.bytesPerRow == size.width * format.bytesPerPixel)
            #expect(thumbnail.pixels == referenceBoxAverage(full, width: size.width, height: size.height), "\(format) in \(box)")
        }
    }

    /// Shrinks that take each integer kernel path for 8-bit samples: boxes of 1–2 and 2–3
    /// columns (specialised), wider ones (a loop), alpha multipliers from the table (small
    /// boxes) and from one division per pixel (large boxes), and boxes too large for either.
    @Test("8-bit thumbnails through every integer kernel path are the exact box average", arguments: [PixelFormat.gray8, .grayAlpha8, .rgb8, .rgba8])
    func integerKernelPathsAreExact(_ format: PixelFormat) throws {
        let image = try makeImage(width: 401, height: 301, format: format, seed: 11)
        let data = try coder.encode(image, as: .png, options: EncodeOptions(compressionLevel: 1))
        let full = try coder.decode(data, options: DecodeOptions())
        for side in [400, 256, 200, 150, 128, 64, 33, 7, 2] {
            let box = PixelSize(width: side, height: side)
            let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: box))
            #expect(thumbnail.pixels == referenceBoxAverage(full, width: thumbnail.width, height: thumbnail.height), "\(format) in \(side)")
        }
    }

    @Test("an interlaced file (full buffer first) gives the same thumbnail as the row-by-row path")
    func interlacedThumbnailMatchesRowByRowThumbnail() throws {
        let image = try makeImage(width: 120, height: 90, format: .rgba8, seed: 3)
        let plain = try coder.encode(image, as: .png, options: EncodeOptions())
        let interlaced = try coder.encode(image, as: .png, options: EncodeOptions(progressive: true))
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 33, height: 33))
        let fromRows = try coder.decode(plain, options: options)
        #expect(fromRows.width == 33 && fromRows.height == 25)
        #expect(fromRows == (try coder.decode(interlaced, options: options)))
    }

    @Test("PngSuite files of every colour type and depth give the box average of their full decode")
    func pngSuiteThumbnailsMatchTheirFullDecode() throws {
        let files = ["basn0g01", "basn0g02", "basn0g04", "basn0g16", "basn2c08", "basn2c16", "basn3p01", "basn3p08", "basn4a08",
                     "basn4a16", "basn6a08", "basn6a16", "tbbn3p08", "tbrn2c08", "tbwn0g16", "basi6a16", "basi3p08"]
        for name in files {
            let data = try TestData.data("pngsuite/\(name).png")
            for preserve16Bit in [false, true] {
                let full = try coder.decode(data, options: DecodeOptions(preserve16Bit: preserve16Bit))
                let thumbnail = try coder.decode(
                    data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 10, height: 10), preserve16Bit: preserve16Bit))
                #expect(thumbnail.width == 10 && thumbnail.height == 10 && thumbnail.pixelFormat == full.pixelFormat, "\(name)")
                #expect(thumbnail.pixels == referenceBoxAverage(full, width: 10, height: 10), "\(name)")
            }
        }
    }

    @Test("averaging premultiplied leaves no dark fringe where opaque meets transparent black")
    func premultipliedAverageLeavesNoDarkFringe() throws {
        // White opaque columns next to transparent black ones: every box mixes them.
        var pixels: [UInt8] = []
        for _ in 0..<4 { for x in 0..<8 { pixels += x % 2 == 0 ? [255, 255, 255, 255] : [0, 0, 0, 0] } }
        let data = try coder.encode(try Image(width: 8, height: 4, pixelFormat: .rgba8, pixels: pixels), as: .png, options: EncodeOptions())
        let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 4, height: 2)))
        #expect(thumbnail.pixels == Array(repeating: [255, 255, 255, 128] as [UInt8], count: 8).flatMap { $0 })
    }

    @Test("a box with a side of zero or less decodes at full size", arguments: [
        PixelSize(width: 0, height: 0), PixelSize(width: 0, height: 100), PixelSize(width: 100, height: 0), PixelSize(width: -5, height: 10),
    ])
    func emptyBoxDecodesFullSize(_ box: PixelSize) throws {
        let data = try coder.encode(try makeImage(width: 150, height: 120, format: .rgb8), as: .png, options: EncodeOptions())
        let full = try coder.decode(data, options: DecodeOptions())
        let decoded = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: box))
        #expect(decoded.width == 150 && decoded.height == 120)
        #expect(decoded == full)
        let progressive = coder.makeProgressiveDecoder(options: DecodeOptions(thumbnailPixelSize: box))
        #expect(try progressive.append(data) == full)
    }

    @Test("a truncated or corrupt file is a typed error on the row-by-row path too")
    func rowByRowFailuresAreTyped() throws {
        let data = try coder.encode(try makeImage(width: 200, height: 150, format: .rgb8), as: .png, options: EncodeOptions())
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 20, height: 20))
        let truncated = kernelError { () throws(ImageKernelError) in try coder.decode(data.prefix(data.count / 2), options: options) }
        #expect(truncated?.code == .truncated && truncated?.plugin == "CoderPNG")
        var corrupt = [UInt8](data)
        let idat = PNGChunks.offset(of: "IDAT", in: corrupt)!
        for i in idat + 100..<idat + 140 { corrupt[i] ^= 0x5A }
        let error = kernelError { () throws(ImageKernelError) in try coder.decode(Data(corrupt), options: options) }
        #expect(error?.code == .corruptData && error?.stage == .decode)
        // Without IEND every pixel is still there: a complete thumbnail.
        let withoutEnd = data.prefix(data.count - 12)
        #expect(try coder.decode(withoutEnd, options: options) == coder.decode(data, options: options))
    }
}

extension PNGChunks {
    /// The offset of the first `type` chunk's data in a PNG file's bytes.
    static func offset(of type: String, in bytes: [UInt8]) -> Int? {
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = Int(bigEndian32Value(bytes, offset))
            if String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self) == type { return offset + 8 }
            offset += 12 + length
        }
        return nil
    }
}

@Suite("Box sums that would overflow 32 bits are carried into 64-bit sums")
struct TallBoxTests {
    @Test("a box taller than 66 051 rows of premultiplied 8-bit samples is still the exact average")
    func tallBoxesStayExact() throws {
        let coder = PNGCoder()
        // 70 000 rows of gray+alpha: c·a sums pass UInt32.max within one box.
        let image = try makeImage(width: 2, height: 70_000, format: .grayAlpha8, seed: 9)
        let data = try coder.encode(image, as: .png, options: EncodeOptions(compressionLevel: 1))
        for box in [PixelSize(width: 1, height: 1), PixelSize(width: 2, height: 2)] {
            let thumbnail = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: box))
            #expect(thumbnail.pixels == referenceBoxAverage(image, width: thumbnail.width, height: thumbnail.height), "\(box)")
        }
    }
}
