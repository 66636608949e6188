import BenchSupport
import ColorLCMS
import Foundation
import CoderJPEG
import ImageKernel
import Transformers

// LCMSColorConverter converting a 12 MP photo-like RGB image tagged with Adobe RGB (1998)
// (Ghostscript's a98.icc, from Debian's libgs-common) to sRGB, against libvips 8.18's
// icc_transform of the same pixels and profile in process (pyvips-binary, from
// `bash Benchmarks/peers/setup.sh`), in the same run. Also the first conversion's cost
// (profile parsing and transform building, cached after it) and a 400x300 source, the image
// proxy's cold size. Usage: bench-color [--iterations 9] [--profile PATH]

let iterations = Options.int("--iterations", 9)
let profilePath = Options.string("--profile") ?? "/usr/share/color/icc/ghostscript/a98.icc"
let profile = [UInt8](try Data(contentsOf: URL(fileURLWithPath: profilePath)))

func tagged(width: Int, height: Int) throws -> (Image, URL) {
    let pixels = SyntheticPhoto.rgb8(width: width, height: height, seed: 11)
    let name = "color-\(width)x\(height).raw"
    _ = try FixtureCache.data(name) { Data(pixels) }
    var image = try Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels)
    image.iccProfile = profile
    return (image, FixtureCache.directory.appendingPathComponent(name))
}

print("bench-color: LCMSColorConverter (lcms2) vs libvips icc_transform, \(profilePath) -> sRGB, relative + BPC; median of \(iterations)")
for (width, height) in [(4000, 3000), (400, 300)] {
    let (image, raw) = try tagged(width: width, height: height)
    let clock = ContinuousClock()
    let firstStart = clock.now
    let fresh = LCMSColorConverter()
    _ = try fresh.convert(image, .sRGB)
    let first = Measure.seconds(clock.now - firstStart)
    let samples = try Measure.samples(iterations: iterations) { _ = try fresh.convert(image, .sRGB) }
    let ours = Measure.median(samples)
    let label = "\(width)x\(height) RGB"
    let noBPC = ColorConversion(target: .sRGB, intent: .relativeColorimetric, blackPointCompensation: false)
    _ = try fresh.convert(image, noBPC)
    let withoutBPC = Measure.median(try Measure.samples(iterations: iterations) { _ = try fresh.convert(image, noBPC) })
    print("\(label): without black-point compensation \(String(format: "%.2f", withoutBPC * 1000)) ms")
    print("\(label): ours \(String(format: "%.2f", ours * 1000)) ms (first call \(String(format: "%.2f", first * 1000)) ms, builds the transform)")
    let python = (ProcessInfo.processInfo.environment["IMAGEKERNEL_PEERS"] ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/imagekernel-peers").path) + "/vips/bin/python"
    guard FileManager.default.isExecutableFile(atPath: python) else {
        print("  libvips: no vips venv (run bash Benchmarks/peers/setup.sh)")
        continue
    }
    let script = benchmarksDirectory().appendingPathComponent("Scripts/vips_icc.py").path
    let output = try Peers.run(python, [script, "\(iterations)", raw.path, "\(width)", "\(height)", profilePath])
    let fields = output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\t")
    guard let vips = fields.first.flatMap({ Double($0) }) else { throw BenchError("vips_icc.py said \(output)") }
    report("\(label) to sRGB vs libvips \(fields.dropFirst().first ?? "?")", ours: ours, baseline: vips, goal: ">= 1x")
}

// What the image proxy's cold path pays for a tagged source: a 400x300 JPEG to `resize:fill:300:200`
// JPEG, as image-proxy renders it. An untagged source takes the planar path (Y'CbCr decode, resize
// on the planes, encode); a tagged one the RGB path with the conversion to sRGB (decode, convert,
// resize, encode). The RGB path without the conversion shows how much of the difference is the path.
print("proxy cold render model, 400x300 JPEG -> resize:fill:300:200 JPEG q80, one thread, median of \(iterations * 5)")
let photo = try Image(width: 400, height: 300, pixelFormat: .rgb8, pixels: SyntheticPhoto.rgb8(width: 400, height: 300, seed: 3))
let untagged = try JPEGCoder().encode(photo, as: .jpeg, options: EncodeOptions(quality: 0.9))
let taggedPhoto = try LCMSColorConverter().convert(photo, ColorConversion(target: .profile(profile)))
let tagged = try JPEGCoder().encode(taggedPhoto, as: .jpeg, options: EncodeOptions(quality: 0.9))
let resize = ResizeTransformer(.fill, width: 300, height: 200)
let encodeOptions = EncodeOptions(quality: 0.8)
let converter = LCMSColorConverter()
let toSRGB = ColorConversionTransformer(converter: converter, conversion: .sRGB)
func planar(_ data: Data) throws -> Data {
    let planes = try JPEGCoder().decodeYCbCr(data, options: DecodeOptions(shrinkOnLoad: resize.shrinkOnLoad))!
    return try JPEGCoder().encode(try resize.transform(planes, subsampling: .s420), options: encodeOptions)
}
func rgb(_ data: Data, convert: Bool, after: Bool = false) throws -> Data {
    var image = try JPEGCoder().decode(data, options: DecodeOptions(shrinkOnLoad: resize.shrinkOnLoad))
    if convert && !after { image = try toSRGB.transform(image) }
    image = try resize.transform(try OrientTransformer().transform(image))
    if convert && after { image = try toSRGB.transform(image) }
    return try JPEGCoder().encode(image, as: .jpeg, options: encodeOptions)
}
let cpu = { (body: () throws -> Void) throws -> Double in
    let samples = try Measure.samples(iterations: iterations * 5) { try TransformThreads.$limit.withValue(1) { try body() } }
    return Measure.median(samples)
}
let untaggedPlanar = try cpu { _ = try planar(untagged) }
let taggedConverted = try cpu { _ = try rgb(tagged, convert: true) }
let taggedAfter = try cpu { _ = try rgb(tagged, convert: true, after: true) }
let taggedRGBOnly = try cpu { _ = try rgb(tagged, convert: false) }
print(String(format: "  untagged, planar path: %.3f ms; tagged, RGB path + conversion before the resize: %.3f ms (%+.1f%%), after it (image-proxy): %.3f ms (%+.1f%%); RGB path alone: %.3f ms",
             untaggedPlanar * 1000, taggedConverted * 1000, (taggedConverted / untaggedPlanar - 1) * 100,
             taggedAfter * 1000, (taggedAfter / untaggedPlanar - 1) * 100, taggedRGBOnly * 1000))
