import BenchSupport
import CBenchJXL
import CoderJXL
import Foundation
import ImageKernel

// CoderJXL benchmarks: decode and encode of a generated 12 MP 8-bit RGB JPEG XL (lossy at
// distance 1, effort 7; lossless at effort 3) against libjxl 0.7 called directly from C
// (CBenchJXL: the same thread count, the same settings). Goal >= 0.95x. Then a 256 px thumbnail
// of a 24 MP JPEG XL against Pillow with pillow-jxl-plugin (libjxl 0.12) in process, the fastest
// JXL thumbnail a peer here offers (the libvips wheel has no JXL loader). Goal >= 1x.

let rounds = Options.int("--rounds", 5)
let (width, height) = (4000, 3000)
let photo = SyntheticPhoto.rgb8(width: width, height: height)
let image = try Image(width: width, height: height, pixelFormat: .rgb8, pixels: photo)
let threads = JXLCoder().threads

func baselineDecode(_ data: Data, keep: Bool = true) -> [UInt8] {
    data.withUnsafeBytes { raw in
        var w: Int32 = 0, h: Int32 = 0
        var rgb: UnsafeMutablePointer<UInt8>?
        guard cbenchjxl_decode(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, Int32(threads), &w, &h, &rgb) == 0, let rgb else {
            fatalError("baseline decode failed")
        }
        defer { free(rgb) }
        return keep ? Array(UnsafeBufferPointer(start: rgb, count: Int(w * h * 3))) : []
    }
}

func baselineEncode(distance: Float, lossless: Bool, effort: Int32) -> Int {
    photo.withUnsafeBufferPointer { pixels in
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard cbenchjxl_encode(pixels.baseAddress, Int32(width), Int32(height), distance, lossless ? 1 : 0, effort, Int32(threads), &out, &size) == 0
        else { fatalError("baseline encode failed") }
        free(out)
        return size
    }
}

print("bench-jxl: CoderJXL vs libjxl \(String(cString: cbenchjxl_version())) called from C (CBenchJXL), \(width)x\(height) RGB8, \(threads) threads, \(rounds) rounds")
for (name, lossless, effort) in [("lossy d1 e7", false, 7), ("lossless e3", true, 3)] {
    let coder = JXLCoder(effort: effort)
    let options = EncodeOptions(quality: 0.9, lossless: lossless)
    let data = try coder.encode(image, as: .jxl, options: options)
    let decoded = try coder.decode(data, options: DecodeOptions())
    precondition(decoded.pixels == baselineDecode(data), "decodes differ from libjxl's")
    if lossless { precondition(decoded.pixels == photo, "lossless decode differs from the source") }
    let decode = Measure.paired(rounds: rounds) {
        _ = try! coder.decode(data, options: DecodeOptions())
    } baseline: {
        _ = baselineDecode(data, keep: false)
    }
    report("decode 12 MP \(name) (\(data.count / 1024) KiB)", ours: decode.ours, baseline: decode.baseline, goal: "goal >= 0.95x")
    let encode = Measure.paired(rounds: max(3, rounds / 2)) {
        _ = try! coder.encode(image, as: .jxl, options: options)
    } baseline: {
        _ = baselineEncode(distance: 1.0, lossless: lossless, effort: Int32(effort))
    }
    report("encode 12 MP \(name)", ours: encode.ours, baseline: encode.baseline, goal: "goal >= 0.95x")
}

// A 256 px thumbnail of a 24 MP lossy JPEG XL: JXLCoder (full decode, then area average: libjxl
// 0.7 has no reduced decode) against Pillow + pillow-jxl-plugin's open + thumbnail.
let peerPython = ProcessInfo.processInfo.environment["HOME"].map { "\($0)/.cache/imagekernel-peers/pillow-jxl/bin/python" }
let bigName = "jxl-photo-6000x4000-d1.jxl"
let big = try FixtureCache.data(bigName) {
    let pixels = SyntheticPhoto.rgb8(width: 6000, height: 4000, seed: 7)
    return try JXLCoder().encode(try Image(width: 6000, height: 4000, pixelFormat: .rgb8, pixels: pixels), as: .jxl, options: EncodeOptions())
}
let box = PixelSize(width: 256, height: 256)
let thumbnailSeconds = Measure.median(try Measure.samples(iterations: max(3, rounds / 2)) {
    _ = try JXLCoder().decode(big, options: DecodeOptions(thumbnailPixelSize: box))
})
if let python = peerPython, FileManager.default.isExecutableFile(atPath: python) {
    let script = benchmarksDirectory().appendingPathComponent("Scripts/pillow_jxl_thumbnail.py").path
    let file = FixtureCache.directory.appendingPathComponent(bigName).path
    let fields = try Peers.run(python, [script, "\(max(3, rounds / 2))", file, "256"]).split(separator: "\t")
    if let peer = fields.first.flatMap({ Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) {
        report("thumbnail 256 px of 24 MP vs Pillow+pillow-jxl", ours: thumbnailSeconds, baseline: peer, goal: "goal >= 1x")
    }
} else {
    print("thumbnail 256 px of 24 MP: \(String(format: "%.3f", thumbnailSeconds)) s (no pillow-jxl: run Benchmarks/peers/setup.sh)")
}
