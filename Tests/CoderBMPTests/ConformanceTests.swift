import CoderBMP
import CoderPNG
import Foundation
import ImageKernel
import ImageKernelConformance
import ImageKernelTestSupport
import Testing

@Suite("CoderConformance with BMP, ICO and CUR fixtures")
struct ConformanceTests {
    static let coder = BMPCoder(pngCoder: PNGCoder())

    /// RLE files and ICO files are lenient when cut (runs end the bitmap where the data ends; a
    /// cut AND mask leaves its rows opaque), so only their shape is checked when truncated.
    static let paths: [(String, rejectsTruncation: Bool)] = [
        ("bmp/bmpsuite/g/rgb24.bmp", true), ("bmp/bmpsuite/g/pal8.bmp", true), ("bmp/bmpsuite/g/pal1.bmp", true),
        ("bmp/bmpsuite/g/rgb16-565.bmp", true), ("bmp/bmpsuite/q/rgba32-1.bmp", true), ("bmp/bmpsuite/g/pal4rle.bmp", false),
        ("bmp/bmpsuite/g/pal8topdown.bmp", true), ("bmp/pillow/hopper.bmp", true), ("ico/pillow/pillow.ico", false),
        ("ico/image-rs/smile.ico", false), ("ico/pillow/deerstalker.cur", false),
    ]

    static let fixtures: [CoderFixture] = paths.compactMap { path, rejectsTruncation in
        guard let data = try? TestData.data(path), let image = try? coder.decode(data, options: DecodeOptions()) else { return nil }
        return CoderFixture(
            name: path, data: data, format: path.hasSuffix(".bmp") ? .bmp : .ico, width: image.width, height: image.height,
            pixelFormat: image.pixelFormat, rejectsTruncation: rejectsTruncation)
    }

    /// BMP is lossless for 8-bit gray, RGB and RGBA (gray is written as 24-bit); ICO with PNG
    /// entries keeps the image itself as its largest entry.
    static let encodeTargets: [CoderConformance.EncodeTarget] = [
        .init(format: .bmp, isLossless: true, pixelFormats: [.rgba8, .rgb8, .gray8, .grayAlpha8]),
        .init(format: .ico, isLossless: true, pixelFormats: [.rgba8, .rgb8, .gray8, .grayAlpha8]),
    ]

    @Test func everyFixtureLoads() {
        #expect(Self.fixtures.count == Self.paths.count)
    }

    @Test("BMPCoder passes every conformance case", arguments: CoderConformance.Case.allCases)
    func passesConformanceCase(_ testCase: CoderConformance.Case) async throws {
        let suite = CoderConformance(coder: Self.coder, fixtures: Self.fixtures, encodeTargets: Self.encodeTargets)
        try await suite.run(case: testCase)
    }

    @Test("BMPCoder without a PNG coder passes every conformance case on BMP entries", arguments: CoderConformance.Case.allCases)
    func passesWithoutPNGCoder(_ testCase: CoderConformance.Case) async throws {
        let bitmapsOnly = Self.fixtures.filter { $0.name != "ico/pillow/pillow.ico" }
        let suite = CoderConformance(coder: BMPCoder(), fixtures: bitmapsOnly, encodeTargets: Self.encodeTargets)
        try await suite.run(case: testCase)
    }
}

@Suite("BMPCoder sniffing")
struct SniffingCURAndBitmapArrays {
    @Test func curIsSniffedAsICOAndDecoded() throws {
        let data = try TestData.data("ico/pillow/deerstalker.cur")
        #expect(ImageFormat.sniff(data) == .ico)
        #expect(BMPCoder().canDecode(data))
    }

    @Test func os2BitmapArraysAreClaimedThoughTheKernelDoesNotSniffThem() throws {
        let data = try TestData.data("bmp/bmpsuite/x/ba-bm.bmp")
        #expect(ImageFormat.sniff(data) == .unknown)
        #expect(BMPCoder().canDecode(data))
        #expect(!BMPCoder().canDecode(Data("BA and then nothing like a bitmap".utf8)))
    }
}
