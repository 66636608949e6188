import BenchSupport
import CBenchTIFF
import CoderTIFF
import Foundation
import ImageKernel

// CoderTIFF benchmarks: decode and encode of a generated 12 MP 8-bit RGB TIFF (deflate and LZW,
// horizontal predictor, ~256 KiB strips) against libtiff called directly from C (CBenchTIFF:
// TIFFClientOpen over memory, TIFFReadEncodedStrip / TIFFWriteEncodedStrip). Goal >= 0.95x.

let rounds = Options.int("--rounds", 7)
let (width, height) = (4000, 3000)
let photo = SyntheticPhoto.rgb8(width: width, height: height)
let image = try Image(width: width, height: height, pixelFormat: .rgb8, pixels: photo)

/// Decodes with libtiff from C; `keep` copies the pixels out (for the equality check only).
func baselineDecode(_ data: Data, keep: Bool = true) -> [UInt8] {
    data.withUnsafeBytes { raw in
        var w: Int32 = 0, h: Int32 = 0
        var rgb: UnsafeMutablePointer<UInt8>?
        guard cbenchtiff_decode(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, &w, &h, &rgb) == 0, let rgb else {
            fatalError("baseline decode failed")
        }
        defer { free(rgb) }
        return keep ? Array(UnsafeBufferPointer(start: rgb, count: Int(w * h * 3))) : []
    }
}

func baselineEncode(_ compression: Int32, level: Int32) -> Int {
    photo.withUnsafeBufferPointer { pixels in
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard cbenchtiff_encode(pixels.baseAddress, Int32(width), Int32(height), compression, level, &out, &size) == 0 else {
            fatalError("baseline encode failed")
        }
        free(out)
        return size
    }
}

print("bench-tiff: CoderTIFF vs \(String(cString: cbenchtiff_version())) called from C (CBenchTIFF), \(width)x\(height) RGB8, \(rounds) rounds")
for (name, compression, cCompression) in [("deflate", TIFFCoder.Compression.deflate, cbenchtiff_deflate()), ("LZW", .lzw, cbenchtiff_lzw())] {
    let coder = TIFFCoder(compression: compression)
    let options = EncodeOptions(compressionLevel: 6)
    let data = try coder.encode(image, as: .tiff, options: options)
    let decoded = try coder.decode(data, options: DecodeOptions())
    precondition(decoded.pixels == photo && baselineDecode(data) == photo, "decodes differ from the source")
    let decode = Measure.paired(rounds: rounds) {
        _ = try! coder.decode(data, options: DecodeOptions())
    } baseline: {
        _ = baselineDecode(data, keep: false)
    }
    report("decode 12 MP \(name) (\(data.count / 1024) KiB)", ours: decode.ours, baseline: decode.baseline, goal: "goal >= 0.95x")
    let encode = Measure.paired(rounds: max(3, rounds / 2)) {
        _ = try! coder.encode(image, as: .tiff, options: options)
    } baseline: {
        _ = baselineEncode(cCompression, level: 6)
    }
    report("encode 12 MP \(name)", ours: encode.ours, baseline: encode.baseline, goal: "goal >= 0.95x")
}

// A 256 px thumbnail of a 24 MP deflate TIFF: TIFFCoder (full decode, then area average) against
// libvips 8.18's thumbnail in process (pyvips, Benchmarks/peers/setup.sh), which streams the
// strips through its shrink with every core.
let vipsPython = ProcessInfo.processInfo.environment["HOME"].map { "\($0)/.cache/imagekernel-peers/vips/bin/python" }
let bigName = "tiff-photo-6000x4000-deflate.tif"
let big = try FixtureCache.data(bigName) {
    let pixels = SyntheticPhoto.rgb8(width: 6000, height: 4000, seed: 7)
    return try TIFFCoder().encode(try Image(width: 6000, height: 4000, pixelFormat: .rgb8, pixels: pixels), as: .tiff, options: EncodeOptions())
}
let box = PixelSize(width: 256, height: 256)
let thumbnailSeconds = Measure.median(try Measure.samples(iterations: max(3, rounds / 2)) {
    _ = try TIFFCoder().decode(big, options: DecodeOptions(thumbnailPixelSize: box))
})
if let python = vipsPython, FileManager.default.isExecutableFile(atPath: python) {
    let script = benchmarksDirectory().appendingPathComponent("Scripts/vips_thumbnail.py").path
    let file = FixtureCache.directory.appendingPathComponent(bigName).path
    let fields = try Peers.run(python, [script, "\(max(3, rounds / 2))", file, "256"]).split(separator: "\t")
    if let vips = fields.first.flatMap({ Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) {
        report("thumbnail 256 px of 24 MP deflate vs libvips thumbnail", ours: thumbnailSeconds, baseline: vips, goal: "goal >= 1x")
    }
} else {
    print("thumbnail 256 px of 24 MP deflate: \(String(format: "%.3f", thumbnailSeconds)) s (no pyvips: run Benchmarks/peers/setup.sh)")
}
