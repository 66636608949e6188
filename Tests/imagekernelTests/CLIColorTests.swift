import CoderJPEG
import CoderPNG
import ColorLCMS
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// `--to-srgb` on `convert` and `fetch`: a ProPhoto-tagged PNG comes out sRGB and untagged; without
/// the flag the profile is kept (as `vips copy` keeps it).
@Suite("imagekernel --to-srgb")
struct CLIColorTests {
    static let proPhoto = "/usr/share/color/icc/ghostscript/rommrgb.icc"

    static func meanDifference(_ a: Image, _ b: Image) -> Double {
        let (x, y) = (a.rgba8Pixels(), b.rgba8Pixels())
        var total = 0
        for i in 0..<min(x.count, y.count) { total += abs(Int(x[i]) - Int(y[i])) }
        return Double(total) / Double(max(1, x.count * 3 / 4))
    }

    @Test func convertToSRGBWritesUntaggedSRGBPixels() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ik-color-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let profile = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.proPhoto)))
        let photo = try JPEGCoder().decode(
            try TestData.data("exif-orientation/recurser/Landscape_1.jpg"), options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 300, height: 200)))
        let tagged = try LCMSColorConverter().convert(photo, ColorConversion(target: .profile(profile)))
        let source = dir.appendingPathComponent("prophoto.png")
        try PNGCoder().encode(tagged, as: .png, options: EncodeOptions()).write(to: source)

        let converted = dir.appendingPathComponent("srgb.png").path
        var output = try CLI.run(["convert", "--to-srgb", source.path, converted])
        #expect(output.status == 0, "\(output.stderr)")
        let srgb = try PNGCoder().decode(try Data(contentsOf: URL(fileURLWithPath: converted)), options: DecodeOptions())
        #expect(srgb.iccProfile == nil)
        let mean = Self.meanDifference(srgb, photo)
        print("convert --to-srgb, ProPhoto PNG: mean \(mean) levels from the sRGB original (unconverted: \(Self.meanDifference(tagged, photo)))")
        #expect(mean <= 1.5)
        #expect(Self.meanDifference(tagged, photo) > 5)

        let kept = dir.appendingPathComponent("kept.png").path
        output = try CLI.run(["convert", source.path, kept])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(try PNGCoder().decode(try Data(contentsOf: URL(fileURLWithPath: kept)), options: DecodeOptions()).iccProfile == profile)

        let jpeg = dir.appendingPathComponent("srgb.jpg").path
        output = try CLI.run(["convert", "--to-srgb", "--quality", "95", source.path, jpeg])
        #expect(output.status == 0, "\(output.stderr)")
        let lossy = try JPEGCoder().decode(try Data(contentsOf: URL(fileURLWithPath: jpeg)), options: DecodeOptions())
        #expect(lossy.iccProfile == nil)
        let lossyMean = Self.meanDifference(lossy, photo)
        print("convert --to-srgb to JPEG q95: mean \(lossyMean) levels")
        #expect(lossyMean <= 3)

        output = try CLI.run(["fetch", "--to-srgb", "--out", dir.appendingPathComponent("fetched").path, source.path])
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
    }
}
