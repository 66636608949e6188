import BenchSupport
import CBenchWebP
import CoderWebP
import Foundation
import ImageKernel

// CoderWebP benchmarks: still decode and encode, and animated decode, against libwebp called
// directly from C (CBenchWebP) on the same bytes, to the same pixels, in the same run.
// Goal for every line: ratio (baseline time / our time) >= 0.95.

let coder = WebPCoder()
let goal = "goal >= 0.95x"
let rounds = Options.int("--rounds", 15)

func photo(width: Int, height: Int, alpha: Bool, seed: UInt32 = 1) -> Image {
    let rgb = SyntheticPhoto.rgb8(width: width, height: height, seed: seed)
    guard alpha else { return try! Image(width: width, height: height, pixelFormat: .rgb8, pixels: rgb) }
    var rgba = [UInt8](repeating: 0, count: width * height * 4)
    for index in 0..<(width * height) {
        rgba[index * 4] = rgb[index * 3]; rgba[index * 4 + 1] = rgb[index * 3 + 1]; rgba[index * 4 + 2] = rgb[index * 3 + 2]
        rgba[index * 4 + 3] = UInt8(128 + (index % width) * 127 / width)
    }
    return try! Image(width: width, height: height, pixelFormat: .rgba8, pixels: rgba)
}

/// Decodes with libwebp from C; `keep` copies the pixels out (for the equality check only).
func baselineDecode(_ data: Data, keep: Bool = true) -> [UInt8] {
    data.withUnsafeBytes { raw in
        var width: Int32 = 0, height: Int32 = 0, channels: Int32 = 0
        var pixels: UnsafeMutablePointer<UInt8>?
        guard cbenchwebp_decode(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, &width, &height, &channels, &pixels) == 0,
              let pixels else { fatalError("baseline decode failed") }
        defer { free(pixels) }
        return keep ? Array(UnsafeBufferPointer(start: pixels, count: Int(width * height * channels))) : []
    }
}

func baselineAnimation(_ data: Data, keep: Bool = true) -> (frames: Int, bytes: [UInt8]) {
    data.withUnsafeBytes { raw in
        var count: Int32 = 0
        var frames: UnsafeMutablePointer<UInt8>?
        guard cbenchwebp_decode_animation(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, &count, &frames) == 0,
              let frames else { fatalError("baseline animation decode failed") }
        defer { free(frames) }
        let canvas = 480 * 270 * 4
        return (Int(count), keep ? Array(UnsafeBufferPointer(start: frames, count: canvas * Int(count))) : [])
    }
}

print("bench-webp: CoderWebP vs libwebp \(String(cString: cbenchwebp_version())) called directly (CBenchWebP)")

// 1. Still decode.
let lossyPhoto = try coder.encode(photo(width: 1920, height: 1080, alpha: false), as: .webp, options: EncodeOptions(quality: 0.8))
let lossyAlpha = try coder.encode(photo(width: 1280, height: 720, alpha: true), as: .webp, options: EncodeOptions(quality: 0.8))
let lossless = try coder.encode(photo(width: 1280, height: 720, alpha: true), as: .webp, options: EncodeOptions(lossless: true))
let bryce = try Data(contentsOf: testDataRoot().appendingPathComponent("webp/libwebp-test-data/bryce.webp"))
for (name, data, count) in [
    ("decode lossy 1920x1080", lossyPhoto, rounds), ("decode lossy+alpha 1280x720", lossyAlpha, rounds),
    ("decode lossless+alpha 1280x720", lossless, rounds), ("decode bryce.webp 11158x2156", bryce, max(3, rounds / 3)),
] {
    let ours = try coder.decode(data, options: DecodeOptions())
    precondition(ours.pixels == baselineDecode(data), "pixels differ from the baseline")
    let times = Measure.paired(rounds: count) {
        _ = try! coder.decode(data, options: DecodeOptions())
    } baseline: {
        _ = baselineDecode(data, keep: false)
    }
    report(name, ours: times.ours, baseline: times.baseline, goal: goal)
}

// 2. Encode (lossy quality 80 method 4; lossless method 4), same settings on both sides.
for (name, image, options) in [
    ("encode lossy q80 1920x1080", photo(width: 1920, height: 1080, alpha: false), EncodeOptions(quality: 0.8)),
    ("encode lossless+alpha 640x360", photo(width: 640, height: 360, alpha: true), EncodeOptions(lossless: true)),
] {
    let channels = Int32(image.pixelFormat.channelCount)
    let baseline = {
        image.pixels.withUnsafeBufferPointer {
            cbenchwebp_encode($0.baseAddress, Int32(image.width), Int32(image.height), channels, Float(options.quality * 100), options.lossless ? 1 : 0, 4)
        }
    }
    let encoded = try coder.encode(image, as: .webp, options: options)
    precondition(encoded.count == baseline(), "file sizes differ from the baseline")
    let times = Measure.paired(rounds: rounds) {
        _ = try! coder.encode(image, as: .webp, options: options)
    } baseline: {
        _ = baseline()
    }
    report(name, ours: times.ours, baseline: times.baseline, goal: goal)
}

// 3. Animated decode: 50 frames of 480x270 (a camera pan over a photo, lossy with alpha), every
// frame composited and copied out on both sides.
let animation = try FixtureCache.data("webp-anim-50x480x270.webp") {
    let canvas = photo(width: 480 + 50 * 8, height: 270, alpha: true)
    let frames = try (0..<50).map { index -> ImageFrame in
        var rows: [UInt8] = []
        for y in 0..<270 {
            let start = (y * canvas.width + index * 8) * 4
            rows += canvas.pixels[start..<start + 480 * 4]
        }
        return ImageFrame(image: try Image(width: 480, height: 270, pixelFormat: .rgba8, pixels: rows), duration: 0.04)
    }
    return try coder.encode(try Image(animating: frames, loopCount: 0), as: .webp, options: EncodeOptions(quality: 0.8))
}
let decodedAnimation = try coder.decode(animation, options: DecodeOptions())
let baselineFrames = baselineAnimation(animation)
precondition(decodedAnimation.frameCount == 50 && baselineFrames.frames == 50, "50 frames")
precondition(decodedAnimation.allFrames.flatMap(\.image.pixels) == baselineFrames.bytes, "frames differ from the baseline")
let animationTimes = Measure.paired(rounds: rounds) {
    _ = try! coder.decode(animation, options: DecodeOptions())
} baseline: {
    _ = baselineAnimation(animation, keep: false)
}
report("decode animation 50 x 480x270", ours: animationTimes.ours, baseline: animationTimes.baseline, goal: goal)
