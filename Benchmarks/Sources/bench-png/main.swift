import BenchSupport
import CBenchPNG
import CoderPNG
import Foundation
import ImageKernel

// CoderPNG benchmarks: decode and encode throughput against libpng's classic API called
// directly from C (CBenchPNG) on the same bytes, to the same pixel format, in the same run.
// Goal for every line: ratio (baseline time / our time) >= 0.95.


/// A deterministic photo-like image: smooth gradients, soft waves and a little sensor noise.
func photoLike(width: Int, height: Int, channels: Int, bitsPerComponent: Int = 8) -> Image {
    var state: UInt32 = 12345
    let bytesPerSample = bitsPerComponent / 8
    var pixels = [UInt8](repeating: 0, count: width * height * channels * bytesPerSample)
    var index = 0
    for y in 0..<height {
        for x in 0..<width {
            let fx = Double(x) / Double(width), fy = Double(y) / Double(height)
            for c in 0..<channels {
                state = state &* 1_664_525 &+ 1_013_904_223
                let wave = sin(fx * 9 + Double(c) * 1.7) * cos(fy * 7 - Double(c)) * 0.25
                var value = 0.35 + 0.3 * fx * (c == 0 ? 1 : 0.5) + 0.25 * fy + wave + Double(state >> 24) / 255 * 0.04
                if c == 3 { value = 0.6 + 0.4 * sin(fx * 3) * cos(fy * 2) }  // alpha: smooth
                let sample = min(1, max(0, value))
                if bytesPerSample == 1 {
                    pixels[index] = UInt8(sample * 255)
                } else {
                    let wide = UInt16(sample * 65535)
                    withUnsafeBytes(of: wide) { pixels[index] = $0[0]; pixels[index + 1] = $0[1] }
                }
                index += bytesPerSample
            }
        }
    }
    let layout: PixelFormat.Layout = [.gray, .grayAlpha, .rgb, .rgba][channels - 1]
    return try! Image(width: width, height: height, pixelFormat: PixelFormat(layout: layout, bitsPerComponent: bitsPerComponent), pixels: pixels)
}

func baselineDecode(_ data: Data, preserve16: Bool) -> [UInt8] {
    data.withUnsafeBytes { raw in
        var width: UInt32 = 0, height: UInt32 = 0, rowBytes = 0
        var pixels: UnsafeMutablePointer<UInt8>?
        guard cbenchpng_decode(raw.baseAddress, raw.count, preserve16 ? 1 : 0, &width, &height, &rowBytes, &pixels) == 0,
              let pixels else { fatalError("baseline decode failed") }
        defer { free(pixels) }
        return Array(UnsafeBufferPointer(start: pixels, count: rowBytes * Int(height)))
    }
}

func baselineDecodeDiscarding(_ data: Data, preserve16: Bool) {
    data.withUnsafeBytes { raw in
        var width: UInt32 = 0, height: UInt32 = 0, rowBytes = 0
        var pixels: UnsafeMutablePointer<UInt8>?
        guard cbenchpng_decode(raw.baseAddress, raw.count, preserve16 ? 1 : 0, &width, &height, &rowBytes, &pixels) == 0
        else { fatalError("baseline decode failed") }
        free(pixels)
    }
}

func baselineEncode(_ image: Image, level: Int, interlace: Bool) -> Int {
    image.pixels.withUnsafeBytes { raw in
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard cbenchpng_encode(
            raw.baseAddress, UInt32(image.width), UInt32(image.height), image.bytesPerRow, Int32(image.pixelFormat.channelCount),
            Int32(image.pixelFormat.bitsPerComponent), Int32(level), interlace ? 1 : 0, &out, &length) == 0
        else { fatalError("baseline encode failed") }
        free(out)
        return length
    }
}

let coder = PNGCoder()
let goal = "goal >= 0.95x"
if let flag = CommandLine.arguments.firstIndex(of: "--profile-thumbnail") {
    // One cell of the thumbnail table, decoded in a loop, for a profiler (see Thumbnails.swift).
    let numbers = CommandLine.arguments[(flag + 1)...].compactMap { Int($0) }
    guard numbers.count == 4 else { fatalError("usage: --profile-thumbnail CHANNELS BOX(0 = full decode) COUNT WIDTH") }
    profileThumbnail(coder: coder, channels: numbers[0], box: numbers[1], count: numbers[2], width: numbers[3])
    exit(0)
}
if CommandLine.arguments.contains("--thumbnails") {
    // Only the thumbnail table (see Thumbnails.swift).
    try benchThumbnails(coder: coder)
    exit(0)
}
print("bench-png: CoderPNG vs libpng \(String(cString: cbenchpng_version())) called directly (CBenchPNG)")

// 1. Decode: every valid top-level PngSuite file, one pass over all of them per round.
let root = testDataRoot()
let suite = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("pngsuite").path)
    .filter { $0.hasSuffix(".png") && !$0.hasPrefix("x") }
    .sorted()
    .map { try Data(contentsOf: root.appendingPathComponent("pngsuite/\($0)")) }
for data in suite {
    let ours = try coder.decode(data, options: DecodeOptions())
    precondition(ours.pixels == baselineDecode(data, preserve16: false), "pixels differ from the baseline")
}
let suiteTimes = Measure.paired(rounds: 41) {
    for data in suite { _ = try? coder.decode(data, options: DecodeOptions()) }
} baseline: {
    for data in suite { baselineDecodeDiscarding(data, preserve16: false) }
}
report("decode PngSuite (\(suite.count) files, per pass)", ours: suiteTimes.ours * 1e3, baseline: suiteTimes.baseline * 1e3, unit: "ms", goal: goal)

// 2. Decode: larger generated images.
struct Case {
    let name: String
    let image: Image
    let interlace: Bool
}
let cases = [
    Case(name: "RGB8 2000x1500 photo", image: photoLike(width: 2000, height: 1500, channels: 3), interlace: false),
    Case(name: "RGB8 2000x1500 photo, Adam7", image: photoLike(width: 2000, height: 1500, channels: 3), interlace: true),
    Case(name: "RGBA8 1024x1024", image: photoLike(width: 1024, height: 1024, channels: 4), interlace: false),
    Case(name: "RGB16 1000x750 (kept 16-bit)", image: photoLike(width: 1000, height: 750, channels: 3, bitsPerComponent: 16), interlace: false),
]
var encodedCases: [(Case, Data)] = []
for item in cases {
    let data = try coder.encode(item.image, as: .png, options: EncodeOptions(compressionLevel: 6, progressive: item.interlace))
    encodedCases.append((item, data))
    let preserve = item.image.pixelFormat.bitsPerComponent == 16
    let ours = try coder.decode(data, options: DecodeOptions(preserve16Bit: preserve))
    precondition(ours.pixels == item.image.pixels && ours.pixels == baselineDecode(data, preserve16: preserve))
    let times = Measure.paired(rounds: 11) {
        _ = try? coder.decode(data, options: DecodeOptions(preserve16Bit: preserve))
    } baseline: {
        baselineDecodeDiscarding(data, preserve16: preserve)
    }
    let megapixels = Double(item.image.pixelCount) / 1e6
    report("decode \(item.name) (\(data.count / 1024) KB)", ours: megapixels / times.ours, baseline: megapixels / times.baseline,
           unit: "MP/s", higherIsBetter: true, goal: goal)
}

// 3. Encode the same images (level 6, and level 1 for the photo).
for (item, _) in encodedCases.prefix(3) {
    for level in item.interlace ? [6] : [6, 1] {
        let options = EncodeOptions(compressionLevel: level, progressive: item.interlace)
        let ours = try coder.encode(item.image, as: .png, options: options)
        precondition(ours.count == baselineEncode(item.image, level: level, interlace: item.interlace), "encoded sizes differ")
        let times = Measure.paired(rounds: 5) {
            _ = try? coder.encode(item.image, as: .png, options: options)
        } baseline: {
            _ = baselineEncode(item.image, level: level, interlace: item.interlace)
        }
        let megapixels = Double(item.image.pixelCount) / 1e6
        report("encode \(item.name) level \(level)", ours: megapixels / times.ours, baseline: megapixels / times.baseline,
               unit: "MP/s", higherIsBetter: true, goal: goal)
    }
}

// 4. Thumbnails against full decodes.
try benchThumbnails(coder: coder)
