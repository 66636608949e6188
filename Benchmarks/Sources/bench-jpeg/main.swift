import BenchSupport
import CoderJPEG
import Foundation
import ImageKernel

// CoderJPEG benchmarks (JPEG half of the coder issue), each against a baseline in the same run:
// 1. Decode throughput vs libjpeg-turbo called directly from C (CBenchJPEG), same files, same
//    pixel formats (RGB8 / Gray8). Goal ≥ 0.95×.
// 2. Encode vs libjpeg-turbo directly, same settings. Goal ≥ 0.95×.
// 3. A 24-megapixel JPEG to a thumbnail fitting 256×256 (file in, JPEG file out) vs Debian's
//    `vipsthumbnail -s 256x256` on the same file: per process (startup included), and per image
//    inside one batch process (startup excluded), with vips' default threads and with one.
//    Goal ≥ 1.0×. And vs a full decode plus a plain area-average resize. Goal ≥ 4×. Two 6000×4000
//    inputs: a synthetic texture (1.8 bits/pixel, entropy decoding dominates) and a real photo
//    from the corpus upscaled (smoother, about 0.9 bits/pixel).
// `bench-jpeg grid` runs only the thumbnail-versus-full-decode grid (ThumbnailGrid.swift).
// Times are medians of interleaved runs; ratios are baseline time / CoderJPEG time.

let iterations = Int(ProcessInfo.processInfo.environment["BENCH_ITERATIONS"] ?? "") ?? 9
let coder = JPEGCoder()

/// Runs `ours` and `baseline` alternately and returns their medians.
func interleaved(_ count: Int = iterations, ours: () throws -> Void, baseline: () throws -> Void) rethrows -> (Double, Double) {
    try ours()
    try baseline()
    var a: [Double] = []
    var b: [Double] = []
    for _ in 0..<count {
        a += try Measure.samples(iterations: 1, warmup: 0, ours)
        b += try Measure.samples(iterations: 1, warmup: 0, baseline)
    }
    return (Measure.median(a), Measure.median(b))
}

if CommandLine.arguments.dropFirst().first == "grid" {
    let photo = try coder.decode(Data(contentsOf: Corpus.testData.appendingPathComponent("exif-orientation/recurser/Landscape_1.jpg")), options: DecodeOptions())
    try benchmarkThumbnailGrid(photo: photo, only: CommandLine.arguments.dropFirst(2).first)
    exit(0)
}

// MARK: 1. Decode throughput

let files = try Corpus.decodeSet()
let megapixels = try files.reduce(0.0) { total, file in
    let image = try coder.decode(file.data, options: DecodeOptions())
    let direct = try DirectLibjpeg.decode(file.data)
    precondition(direct.width == image.width && direct.height == image.height && direct.channels == image.pixelFormat.channelCount)
    return total + Double(image.pixelCount) / 1e6
}
let (decodeOurs, decodeDirect) = try interleaved(
    ours: { for file in files { _ = try coder.decode(file.data, options: DecodeOptions()) } },
    baseline: { for file in files { try DirectLibjpeg.decode(file.data) } })
print(String(format: "decode: %d files, %.1f MP per pass; CoderJPEG %.0f MP/s, libjpeg direct %.0f MP/s",
             files.count, megapixels, megapixels / decodeOurs, megapixels / decodeDirect))
report("decode throughput vs libjpeg-turbo direct", ours: decodeOurs, baseline: decodeDirect, goal: "goal >= 0.95x")

// MARK: 2. Encode

let photo = try coder.decode(files[0].data, options: DecodeOptions())  // 1800x1200 RGB
for (label, progressive, full444) in [("baseline 4:2:0", false, false), ("progressive 4:4:4", true, true)] {
    let options = EncodeOptions(quality: 0.9, progressive: progressive, chromaSubsampling444: full444)
    let ours = try coder.encode(photo, as: .jpeg, options: options)
    let direct = try DirectLibjpeg.encode(photo, quality: 90, subsampling444: full444, progressive: progressive)
    precondition(ours.count == direct, "the same settings must give the same bytes (\(ours.count) vs \(direct))")
    let (encodeOurs, encodeDirect) = try interleaved(
        ours: { _ = try coder.encode(photo, as: .jpeg, options: options) },
        baseline: { try DirectLibjpeg.encode(photo, quality: 90, subsampling444: full444, progressive: progressive) })
    report("encode 1800x1200 q90 \(label) vs libjpeg direct", ours: encodeOurs, baseline: encodeDirect, goal: "goal >= 0.95x")
}

// MARK: 3. Thumbnail of a 24-megapixel JPEG

try benchmarkThumbnails("synthetic texture", try Corpus.largeJPEG())
try benchmarkThumbnails("upscaled photo", try Corpus.upscaledPhoto(photo))
