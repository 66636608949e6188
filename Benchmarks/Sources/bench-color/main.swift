import BenchSupport
import ColorLCMS
import Foundation
import ImageKernel

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
