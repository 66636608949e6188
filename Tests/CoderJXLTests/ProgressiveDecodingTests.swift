import CoderJXL
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

@Suite("JPEG XL incremental decoding and JPEG reconstruction")
struct ProgressiveDecodingTests {
    let coder = JXLCoder()

    /// A lossy 1200x900 photo-like image written progressively by us (libjxl's `progressive_dc`
    /// and passes), large enough for several groups.
    static let progressiveFile: Data = {
        var pixels: [UInt8] = []
        for y in 0..<900 {
            for x in 0..<1200 { pixels += [UInt8((x * 7 + y) & 255), UInt8((y * 3) & 255), UInt8(((x ^ y) >> 2) & 255)] }
        }
        let image = try! Image(width: 1200, height: 900, pixelFormat: .rgb8, pixels: pixels)
        return try! JXLCoder(effort: 3).encode(image, as: .jxl, options: EncodeOptions(quality: 0.8, progressive: true))
    }()

    @Test("chunks end in the full decode, with previews before it", arguments: [
        "jxl/conformance/bicycles.jxl", "jxl/conformance/patches_lossless.jxl", "jxl/conformance/bench_oriented_brg.jxl",
    ])
    func endsInTheFullDecode(_ path: String) throws {
        let data = try TestData.data(path)
        let images = try coder.imagesFedInChunks(data, chunk: max(256, data.count / 12))
        let full = try coder.decode(data, options: DecodeOptions())
        let last = try #require(images.last)
        #expect(!last.isPreview)
        #expect(last.pixels == full.pixels && last.pixelFormat == full.pixelFormat)
        #expect(last.iccProfile == full.iccProfile && last.cicp == full.cicp && last.orientation == full.orientation)
        #expect(images.dropLast().allSatisfy { $0.isPreview && $0.width == full.width && $0.height == full.height })
    }

    @Test func previewsArriveWhileTheBytesDo() throws {
        let data = Self.progressiveFile
        let images = try coder.imagesFedInChunks(data, chunk: data.count / 20 + 1)
        let full = try coder.decode(data, options: DecodeOptions())
        #expect(images.last?.pixels == full.pixels && images.last?.isPreview == false)
        #expect(images.count >= 3, "\(images.count) images for \(data.count) bytes")
        // The first preview is a blurred whole image (the DC), not a blank.
        let first = try #require(images.first)
        #expect(first.isPreview && Set(first.pixels.prefix(3000)).count > 8)
    }

    @Test func byteByByteMatchesToo() throws {
        let data = try TestData.data("jxl/conformance/grayscale.jxl")
        let images = try coder.imagesFedInChunks(data, chunk: 1)
        #expect(images.last?.pixels == (try coder.decode(data, options: DecodeOptions())).pixels)
        #expect(images.last?.isPreview == false)
    }

    @Test func animationsComeWholeAtTheEnd() throws {
        let data = try TestData.data("jxl/libjxl-testdata/cropped_traffic_light.jxl")
        let images = try coder.imagesFedInChunks(data, chunk: 100)
        #expect(images.count == 1)
        let whole = try coder.decode(data, options: DecodeOptions())
        #expect(images.first?.frameCount == 4 && images.first?.allFrames.map(\.image.pixels) == whole.allFrames.map(\.image.pixels))
        let budget = coder.makeProgressiveDecoder(options: DecodeOptions(maxFrameCount: 3))
        let error = #expect(throws: ImageKernelError.self) { _ = try budget.append(data) }
        #expect(error?.code == .pixelLimitExceeded)
    }

    @Test func corruptDataKeepsThrowing() throws {
        var bytes = [UInt8](try TestData.data("jxl/conformance/bicycles.jxl"))
        for index in 40..<bytes.count { bytes[index] = 0xFF }
        let decoder = coder.makeProgressiveDecoder(options: DecodeOptions())
        #expect(throws: ImageKernelError.self) { _ = try decoder.append(Data(bytes)) }
        #expect(throws: ImageKernelError.self) { _ = try decoder.append(Data([0])) }
        let notJXL = coder.makeProgressiveDecoder(options: DecodeOptions())
        #expect(throws: ImageKernelError.self) { _ = try notJXL.append(Data("GIF89a and more".utf8)) }
    }

    /// libjxl's testdata keeps the JPEG its 1x1 file was transcoded from.
    @Test func originalJPEGComesBackByteForByte() throws {
        let jxl = try TestData.data("jxl/libjxl-testdata/1x1_exif_xmp.jxl")
        #expect(try coder.reconstructedJPEG(from: jxl) == (try TestData.data("jxl/libjxl-testdata/1x1_exif_xmp.jpg")))
        // A JPEG XL that holds no JPEG gives nil.
        #expect(try coder.reconstructedJPEG(from: TestData.data("jxl/conformance/bicycles.jxl")) == nil)
    }

    /// A JPEG of the corpus transcoded here by cjxl (lossless JPEG recompression), then rebuilt.
    @Test(arguments: ["jpeg/libjpeg-turbo/testorig.jpg", "jpeg/pillow/hopper.jpg"])
    func cjxlTranscodedJPEGComesBackByteForByte(_ path: String) throws {
        try #require(LibjxlTools.available, "cjxl (libjxl-tools) is needed: scripts/deps.sh installs it")
        let dir = try LibjxlTools.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let jxl = dir.appendingPathComponent("out.jxl")
        #expect(try LibjxlTools.run("cjxl", [TestData.url(path).path, jxl.path]) == 0)
        let data = try Data(contentsOf: jxl)
        #expect(try coder.reconstructedJPEG(from: data) == (try TestData.data(path)))
        // And its pixels decode like any JPEG XL.
        #expect(try coder.decode(data, options: DecodeOptions()).sourceFormat == .jxl)
    }
}
