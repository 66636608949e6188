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
// proxy's cold size. Then the direct matrix/shaper path against lcms (DirectPath.swift): the
// converter alone and a whole tagged render against an untagged one.
// Usage: bench-color [--iterations 9] [--profile PATH] [--proxy-only | --direct-only] [--proxy-sizes WxH,...]

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
// --proxy-only skips to the proxy model (for valgrind's instruction counts, which do not drift
// with the machine's load: valgrind --tool=callgrind .build/release/bench-color --proxy-only --iterations 1).
let proxyOnly = CommandLine.arguments.contains("--proxy-only")
let directOnly = CommandLine.arguments.contains("--direct-only")
for (width, height) in proxyOnly || directOnly ? [] : [(4000, 3000), (400, 300)] {
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

// What the image proxy's cold path pays for a tagged source: a JPEG to `resize:fill:300:200` JPEG,
// as image-proxy renders it, from the cold benchmark's 400x300 and from a 1800x1200 photo. An
// untagged source takes the planar path (Y'CbCr decode, resize on the planes, encode); a tagged one
// the RGB path with the conversion after the resize (image-proxy). Also measured: the planes, then
// RGB at the output size, converted, encoded (the alternative issue 36 asks to weigh: it is dearer),
// the conversion before the resize, and the RGB path without a conversion.
let resize = ResizeTransformer(.fill, width: 300, height: 200)
let encodeOptions = EncodeOptions(quality: 0.8)
let converter = LCMSColorConverter()
let toSRGB = ColorConversionTransformer(converter: converter, conversion: .sRGB)
func planar(_ data: Data, convert: Bool = false) throws -> Data {
    let planes = try JPEGCoder().decodeYCbCr(data, options: DecodeOptions(shrinkOnLoad: resize.shrinkOnLoad))!
    var resized = try resize.transform(planes, subsampling: .s420)
    guard convert else { return try JPEGCoder().encode(resized, options: encodeOptions) }
    resized.iccProfile = planes.iccProfile
    return try JPEGCoder().encode(try toSRGB.transform(try resized.rgbImage()), as: .jpeg, options: encodeOptions)
}
func rgb(_ data: Data, convert: Bool, after: Bool = false, through conversion: ColorConversionTransformer = toSRGB) throws -> Data {
    var image = try JPEGCoder().decode(data, options: DecodeOptions(shrinkOnLoad: resize.shrinkOnLoad))
    if convert && !after { image = try conversion.transform(image) }
    image = try resize.transform(try OrientTransformer().transform(image))
    if convert && after { image = try conversion.transform(image) }
    return try JPEGCoder().encode(image, as: .jpeg, options: encodeOptions)
}
let cpu = { (body: () throws -> Void) throws -> Double in
    let samples = try Measure.samples(iterations: iterations * 5) { try TransformThreads.$limit.withValue(1) { try body() } }
    return Measure.median(samples)
}
// --proxy-sizes 400x300,1800x1200 (the default) picks the sources.
let proxySizes = (Options.string("--proxy-sizes") ?? "400x300,1800x1200").split(separator: ",").compactMap { size -> (Int, Int)? in
    let parts = size.split(separator: "x").compactMap { Int($0) }
    return parts.count == 2 ? (parts[0], parts[1]) : nil
}
for (width, height) in directOnly ? [] : proxySizes {
    print("proxy cold render model, \(width)x\(height) JPEG -> resize:fill:300:200 JPEG q80, one thread, median of \(iterations * 5)")
    let photo = try Image(width: width, height: height, pixelFormat: .rgb8, pixels: SyntheticPhoto.rgb8(width: width, height: height, seed: 3))
    let untagged = try JPEGCoder().encode(photo, as: .jpeg, options: EncodeOptions(quality: 0.9))
    let taggedPhoto = try LCMSColorConverter().convert(photo, ColorConversion(target: .profile(profile)))
    let tagged = try JPEGCoder().encode(taggedPhoto, as: .jpeg, options: EncodeOptions(quality: 0.9))
    _ = try planar(tagged, convert: true)  // builds the cached transform before anything is counted
    let untaggedPlanar = try cpu { _ = try planar(untagged) }
    let taggedPlanar = try cpu { _ = try planar(tagged, convert: true) }
    let taggedConverted = try cpu { _ = try rgb(tagged, convert: true) }
    let taggedAfter = try cpu { _ = try rgb(tagged, convert: true, after: true) }
    let taggedRGBOnly = try cpu { _ = try rgb(tagged, convert: false) }
    func percent(_ t: Double) -> String { String(format: "%.3f ms (%+.1f%%)", t * 1000, (t / untaggedPlanar - 1) * 100) }
    print(String(format: "  untagged, planar path: %.3f ms", untaggedPlanar * 1000))
    print("  tagged, RGB path + conversion after the resize (image-proxy): \(percent(taggedAfter)); before it: \(percent(taggedConverted))")
    print("  tagged, planar path + conversion at the output: \(percent(taggedPlanar)); RGB path alone: \(percent(taggedRGBOnly))")
}

if !proxyOnly {
    try benchDirectConversion(rounds: iterations * 5)
    try benchTaggedRender(
        rounds: iterations * 5, planar: { try planar($0) },
        rgb: { data, conversion in try rgb(data, convert: conversion != nil, after: true, through: conversion ?? toSRGB) },
        planarConverted: { data, converter in
            let planes = try JPEGCoder().decodeYCbCr(data, options: DecodeOptions(shrinkOnLoad: resize.shrinkOnLoad))!
            var resized = try resize.transform(planes, subsampling: .s420)
            resized.iccProfile = planes.iccProfile
            guard let converted = try converter.convertPlanes(resized, .sRGB) else { throw BenchError("the planes took no direct path") }
            return try JPEGCoder().encode(converted, options: encodeOptions)
        })
}
