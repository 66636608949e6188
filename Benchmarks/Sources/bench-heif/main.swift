import BenchSupport
import CBenchHEIF
import CoderHEIF
import Foundation
import ImageKernel

// CoderHEIF benchmarks against libheif called directly from C (CBenchHEIF) with the same
// options, in the same run: decode (goal >= 0.95x), a stored-thumbnail decode against a full
// decode (goal >= 10x), and encode (goal >= 0.95x, with bytes and PSNR beside the times).
// Fixtures: 12 MP HEIC (with a 320 px stored thumbnail) and AVIF made here by CoderHEIF's
// encoder from a synthetic photo (kept in FixtureCache), plus every decodable corpus file.

let coder = HEIFCoder()
let rounds = Options.int("--rounds", 7)
let goal = "goal >= 0.95x"
print("bench-heif: CoderHEIF vs libheif \(String(cString: cbenchheif_version())) called directly (CBenchHEIF), \(rounds) paired rounds")

func photo(width: Int, height: Int) -> Image {
    try! Image(width: width, height: height, pixelFormat: .rgb8, pixels: SyntheticPhoto.rgb8(width: width, height: height))
}

/// libheif's decode; `owned` also copies the pixels out into a buffer of the caller's, which
/// ours must do (an `Image` owns its pixels after the codec's objects are released).
func baselineDecode(_ data: Data, owned: Bool = true) {
    data.withUnsafeBytes { raw in
        var w: Int32 = 0, h: Int32 = 0
        var pixels: UnsafeMutablePointer<UInt8>?
        let status = owned ? cbenchheif_decode(raw.baseAddress, raw.count, &pixels, &w, &h) : cbenchheif_decode(raw.baseAddress, raw.count, nil, &w, &h)
        guard status == 0 else { fatalError("baseline decode failed") }
        free(pixels)
    }
}

func baselineEncode(_ image: Image, av1: Bool, quality: Int) -> Data {
    image.pixels.withUnsafeBytes { raw in
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard cbenchheif_encode(
            raw.bindMemory(to: UInt8.self).baseAddress, Int32(image.width), Int32(image.height), Int32(image.pixelFormat.channelCount),
            av1 ? 1 : 0, Int32(quality), &out, &length) == 0, let out
        else { fatalError("baseline encode failed") }
        defer { free(out) }
        return Data(bytes: out, count: length)
    }
}

/// Medians of `ours` and `baseline` run in alternating blocks of five (ours ×5, libheif ×5, …),
/// a cross-check of the paired rounds (where each call follows the other side's).
func inBlocks(rounds: Int, ours: () -> Void, baseline: () -> Void) -> (ours: Double, baseline: Double) {
    var a: [Double] = [], b: [Double] = []
    for _ in 0..<max(1, rounds / 5 + 1) {
        a += Measure.samples(iterations: 5, warmup: 1, ours)
        b += Measure.samples(iterations: 5, warmup: 1, baseline)
    }
    return (Measure.median(a), Measure.median(b))
}

func psnr(_ a: Image, _ b: Image) -> Double {
    let x = a.rgba8Pixels(), y = b.rgba8Pixels()
    var sum = 0.0
    for i in x.indices {
        let d = Double(Int(x[i]) - Int(y[i]))
        sum += d * d
    }
    let mse = sum / Double(x.count)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
}

// 1. Decode 12 MP files.
let big = photo(width: 4000, height: 3000)
let heic12 = try FixtureCache.data("photo-4000x3000-thumb320.heic") {
    try coder.encode(big, as: .heic, options: EncodeOptions(quality: 0.8), thumbnailFitting: 320)
}
let avif12 = try FixtureCache.data("photo-4000x3000.avif") { try coder.encode(big, as: .avif, options: EncodeOptions(quality: 0.8)) }
for (name, data) in [("decode 12 MP HEIC", heic12), ("decode 12 MP AVIF", avif12)] {
    let times = Measure.paired(rounds: rounds, ours: { _ = try! coder.decode(data, options: DecodeOptions()) }, baseline: { baselineDecode(data) })
    report(name + " (vs decode + copy out)", ours: times.ours, baseline: times.baseline, goal: goal)
    let bare = Measure.paired(rounds: rounds, ours: { _ = try! coder.decode(data, options: DecodeOptions()) }, baseline: { baselineDecode(data, owned: false) })
    report(name + " (vs decode alone)", ours: bare.ours, baseline: bare.baseline)
    let blocks = inBlocks(rounds: rounds, ours: { _ = try! coder.decode(data, options: DecodeOptions()) }, baseline: { baselineDecode(data) })
    report(name + " (blocks of 5, vs decode + copy)", ours: blocks.ours, baseline: blocks.baseline, goal: goal)
}

// 1b. A 4000x3000 grid of 512 px tiles (as phones write): libheif's tile threads against one.
let gridData = try FixtureCache.data("photo-4000x3000-grid512.heic") { try GridFile.make(from: big, tile: 512, coder: coder) }
let gridImage = try coder.decode(gridData, options: DecodeOptions())
precondition(gridImage.width == 4000 && gridImage.height == 3000, "the grid file decodes to \(gridImage.width)x\(gridImage.height)")
let single = HEIFCoder(decodingThreads: 1)
let gridThreads = Measure.paired(
    rounds: rounds, ours: { _ = try! coder.decode(gridData, options: DecodeOptions()) },
    baseline: { _ = try! single.decode(gridData, options: DecodeOptions()) })
report("grid 12 MP: libheif threads vs 1 thread", ours: gridThreads.ours, baseline: gridThreads.baseline, goal: "(> 1: threads help)")
let gridTimes = Measure.paired(rounds: rounds, ours: { _ = try! coder.decode(gridData, options: DecodeOptions()) }, baseline: { baselineDecode(gridData) })
report("decode 12 MP grid HEIC", ours: gridTimes.ours, baseline: gridTimes.baseline, goal: goal)
if CommandLine.arguments.contains("--decode-only") { exit(0) }

// 2. Decode every decodable corpus file, one pass over all of them per round.
let root = testDataRoot()
let table = try String(contentsOf: root.appendingPathComponent("REFERENCE-LIBHEIF.tsv"), encoding: .utf8)
let corpus = table.split(separator: "\n")
    .map { $0.split(separator: "\t").map(String.init) }
    .filter { $0.count >= 7 && $0[1] == "HEIF" }
    .map { try! Data(contentsOf: root.appendingPathComponent($0[0])) }
let corpusTimes = Measure.paired(
    rounds: rounds, ours: { for data in corpus { _ = try! coder.decode(data, options: DecodeOptions()) } },
    baseline: { for data in corpus { baselineDecode(data) } })
report("decode corpus (\(corpus.count) files)", ours: corpusTimes.ours, baseline: corpusTimes.baseline, goal: goal)

// 3. A 256 px thumbnail of the 12 MP HEIC (stored 320 px thumbnail) against a full decode.
let thumbOptions = DecodeOptions(thumbnailPixelSize: PixelSize(width: 256, height: 256))
let probe = try coder.decode(heic12, options: thumbOptions)
precondition(probe.decoderNotes[Image.MetadataKey.thumbnailSource] == "embedded", "the thumbnail did not come from the stored one")
let thumbTimes = Measure.paired(
    rounds: rounds, ours: { _ = try! coder.decode(heic12, options: thumbOptions) },
    baseline: { _ = try! coder.decode(heic12, options: DecodeOptions()) })
report("thumbnail 256 px (stored 320) vs full decode", ours: thumbTimes.ours, baseline: thumbTimes.baseline, goal: "goal >= 10x")

// 4. Encode a 1600x1200 photo at quality 80.
let medium = photo(width: 1600, height: 1200)
for (format, av1) in [(ImageFormat.heic, false), (.avif, true)] {
    var ours = Data(), theirs = Data()
    let times = Measure.paired(
        rounds: max(3, rounds / 2), ours: { ours = try! coder.encode(medium, as: format, options: EncodeOptions(quality: 0.8)) },
        baseline: { theirs = baselineEncode(medium, av1: av1, quality: 80) })
    report("encode 1600x1200 \(format) q80", ours: times.ours, baseline: times.baseline, goal: goal)
    let oursPSNR = psnr(medium, try coder.decode(ours, options: DecodeOptions()))
    let theirsPSNR = psnr(medium, try coder.decode(theirs, options: DecodeOptions()))
    print(String(format: "    bytes ours %d baseline %d; PSNR ours %.2f dB baseline %.2f dB", ours.count, theirs.count, oursPSNR, theirsPSNR))
}
