import BenchSupport
import CBenchGIF
import CoderGIF
import Foundation
import ImageKernel

// CoderGIF benchmarks: animated decode (every frame composited to a full RGBA canvas) against
// giflib plus the same compositing in C (CBenchGIF), and against Pillow in process
// (Scripts/pillow_gif.py, seek + convert("RGBA") per frame). Goals: >= 0.95x the C baseline,
// >= 2x Pillow.

let coder = GIFCoder()
let rounds = Options.int("--rounds", 15)

/// Decodes with giflib from C; `keep` copies the frames out (for the equality check only).
func baseline(_ data: Data, keep: Bool = true) -> (frames: Int, bytes: [UInt8]) {
    data.withUnsafeBytes { raw in
        var width: Int32 = 0, height: Int32 = 0, count: Int32 = 0
        var frames: UnsafeMutablePointer<UInt8>?
        guard cbenchgif_decode(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, &width, &height, &count, &frames) == 0,
              let frames else { fatalError("baseline decode failed") }
        defer { free(frames) }
        return (Int(count), keep ? Array(UnsafeBufferPointer(start: frames, count: Int(width * height * 4 * count))) : [])
    }
}

func pillow(_ file: URL, iterations: Int) throws -> Double? {
    guard let python = Peers.pillowPython()?.python else { return nil }
    let script = benchmarksDirectory().appendingPathComponent("Scripts/pillow_gif.py").path
    let fields = try Peers.run(python, [script, "\(iterations)", file.path]).split(separator: "\t")
    return fields.first.flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
}

// A 50-frame 480x270 animation (a camera pan over a photo, a median-cut palette per frame),
// plus two of Pillow's animated test files.
let panFile = FixtureCache.directory.appendingPathComponent("gif-pan-50x480x270.gif")
let pan = try FixtureCache.data("gif-pan-50x480x270.gif") {
    let photo = SyntheticPhoto.rgb8(width: 480 + 50 * 8, height: 270)
    let frames = try (0..<50).map { index -> ImageFrame in
        var rows: [UInt8] = []
        for y in 0..<270 {
            let start = (y * (480 + 50 * 8) + index * 8) * 3
            rows += photo[start..<start + 480 * 3]
        }
        return ImageFrame(image: try Image(width: 480, height: 270, pixelFormat: .rgb8, pixels: rows), duration: 0.04)
    }
    return try coder.encode(try Image(animating: frames, loopCount: 0), as: .gif, options: EncodeOptions())
}
print("bench-gif: CoderGIF vs giflib \(String(cString: cbenchgif_version())) + compositing in C (CBenchGIF), and \(Peers.pillowPython()?.label ?? "no Pillow (run Benchmarks/peers/setup.sh)")")
let root = testDataRoot()
for (name, file) in [
    ("pan 50 x 480x270", panFile), ("chi.gif 31 x 320x240", root.appendingPathComponent("gif/pillow/chi.gif")),
    ("iss634.gif 42 x 245x245", root.appendingPathComponent("gif/pillow/iss634.gif")),
] {
    let data = try Data(contentsOf: file)
    let ours = try coder.decode(data, options: DecodeOptions())
    let reference = baseline(data)
    precondition(ours.frameCount == reference.frames && ours.allFrames.flatMap(\.image.pixels) == reference.bytes, "frames differ from the baseline")
    let times = Measure.paired(rounds: rounds) {
        _ = try! coder.decode(data, options: DecodeOptions())
    } baseline: {
        _ = baseline(data, keep: false)
    }
    report("decode \(name) vs giflib+C", ours: times.ours, baseline: times.baseline, goal: "goal >= 0.95x")
    if let pillowSeconds = try pillow(file, iterations: rounds) {
        report("decode \(name) vs Pillow", ours: times.ours, baseline: pillowSeconds, goal: "goal >= 2x")
    }
}
