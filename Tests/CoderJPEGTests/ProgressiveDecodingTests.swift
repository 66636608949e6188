import CoderJPEG
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

@Suite("Progressive decoding of partial data gives previews, then the exact final image")
struct ProgressiveDecodingTests {
    let coder = JPEGCoder()

    /// Feeds `data` in chunks of `size` bytes and collects every image returned.
    func feed(_ data: Data, chunk size: Int, options: DecodeOptions = DecodeOptions()) throws -> [Image] {
        let decoder = coder.makeProgressiveDecoder(options: options)
        var images: [Image] = []
        var offset = 0
        while offset < data.count {
            let end = min(data.count, offset + size)
            if let image = try decoder.append(data.subdata(in: offset..<end)) { images.append(image) }
            offset = end
        }
        return images
    }

    @Test("a progressive file yields previews of completed scans, then its reference image")
    func progressiveFileYieldsScanPreviews() throws {
        let row = try #require(Reference.rows.first { $0.path == "jpeg/derived/testorig-progressive.jpg" })
        let images = try feed(TestData.data(row.path), chunk: 256)
        let previews = images.filter(\.isPreview)
        #expect(previews.count >= 3, "\(previews.count) previews")
        #expect(previews.allSatisfy { $0.width == 227 && $0.height == 149 })
        // Later scans refine the picture: the last preview is closer to the final than the first.
        let final = try #require(images.last)
        #expect(!final.isPreview && images.filter { !$0.isPreview }.count == 1)
        #expect(rgbaHash(final) == row.sha256RGBA)
        let first = Synthetic.meanAbsoluteDifference(previews.first!, final)
        let last = Synthetic.meanAbsoluteDifference(previews.last!, final)
        #expect(last < first, "first preview differs by \(first), last by \(last)")
    }

    @Test("a baseline file yields row-by-row previews, then its reference image")
    func baselineFileYieldsRowPreviews() throws {
        let row = try #require(Reference.rows.first { $0.path == "jpeg/libjpeg-turbo/testorig.jpg" })
        let images = try feed(TestData.data(row.path), chunk: 512)
        #expect(images.filter(\.isPreview).count >= 3)
        let final = try #require(images.last)
        #expect(!final.isPreview)
        #expect(rgbaHash(final) == row.sha256RGBA)
    }

    @Test("fed in chunks, every reference JPEG ends in exactly its reference image", arguments: Reference.decodableJPEGs)
    func chunkedDecodeMatchesReference(_ row: ReferenceRow) throws {
        let data = try TestData.data(row.path)
        let images = try feed(data, chunk: max(64, data.count / 7))
        let finals = images.filter { !$0.isPreview }
        #expect(finals.count == 1)
        let final = try #require(finals.first)
        #expect(rgbaHash(final) == row.sha256RGBA)
        #expect(final.orientation == (row.exifOrientation.flatMap(ExifOrientation.init(rawValue:)) ?? .up))
    }

    @Test("one byte at a time through restart markers and progressive scans", arguments: [
        "jpeg/jpeg-decoder/restarts.jpg", "jpeg/mozilla/jpg-progressive.jpg", "jpeg/derived/testorig-restart1-optimized.jpg",
    ])
    func oneByteAtATime(_ path: String) throws {
        let row = try #require(Reference.rows.first { $0.path == path })
        let final = try #require(try feed(TestData.data(path), chunk: 1).last)
        #expect(!final.isPreview && rgbaHash(final) == row.sha256RGBA)
    }

    @Test("an arithmetic-coded file is decoded once its EOI arrives, with no previews")
    func arithmeticWaitsForEOI() throws {
        let row = try #require(Reference.rows.first { $0.path == "jpeg/libjpeg-turbo/testimgari.jpg" })
        let images = try feed(TestData.data(row.path), chunk: 300)
        #expect(images.count == 1)
        #expect(images.first.map { !$0.isPreview && rgbaHash($0) == row.sha256RGBA } == true)
    }

    @Test("a thumbnail size applies to previews and the final image")
    func thumbnailAppliesToPreviews() throws {
        let images = try feed(
            TestData.data("jpeg/derived/testorig-progressive.jpg"), chunk: 512,
            options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 50, height: 50)))
        #expect(!images.isEmpty && images.allSatisfy { $0.width == 50 && $0.height == 33 })
    }

    @Test("a truncated stream yields only previews and never throws")
    func truncatedStreamGivesOnlyPreviews() throws {
        let data = try TestData.data("jpeg/derived/testorig-progressive.jpg")
        let images = try feed(data.prefix(data.count * 2 / 3), chunk: 200)
        #expect(!images.isEmpty && images.allSatisfy(\.isPreview))
    }

    @Test("the pixel limit is checked as soon as the header arrives")
    func pixelLimitInProgressiveDecoder() throws {
        let decoder = coder.makeProgressiveDecoder(options: DecodeOptions(pixelLimit: 1000))
        let data = try TestData.data("jpeg/libjpeg-turbo/testorig.jpg")
        let error = #expect(throws: ImageKernelError.self) { _ = try decoder.append(data) }
        #expect(error?.code == .pixelLimitExceeded)
    }

    @Test("corrupt data throws, and every later call throws the same error")
    func corruptStreamKeepsThrowing() throws {
        let decoder = coder.makeProgressiveDecoder(options: DecodeOptions())
        let data = try TestData.data("broken/jpeg/jpeg-decoder/derive-huffman-codes-overflow.jpg")
        let first = #expect(throws: ImageKernelError.self) { _ = try decoder.append(data) }
        #expect(first?.code == .corruptData)
        let second = #expect(throws: ImageKernelError.self) { _ = try decoder.append(Data([0xFF, 0xD9])) }
        #expect(second?.message == first?.message)
    }

    @Test("every broken file fed in chunks gives a typed error or images", arguments: HostileInputTests.brokenFiles)
    func brokenFilesInChunks(_ path: String) throws {
        do {
            _ = try feed(TestData.data(path), chunk: 97)
        } catch let error as ImageKernelError {
            #expect([.corruptData, .truncated, .unsupported, .pixelLimitExceeded].contains(error.code), "\(error)")
        }
    }
}
