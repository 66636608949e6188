import BenchSupport
import CoderJPEG
import Foundation
import ImageKernel
import Transformers

// crop:W:H:smart against libvips 8.18's smartcrop (interesting=attention), in process
// (pyvips-binary, from `bash Benchmarks/peers/setup.sh`), in the same run, on scenes whose
// subject is known: salient crops of the corpora's JPEG photos (a colourful test card, a
// waterfall, a lamp in the dusk, a rock face, a colour sample) pasted off-centre, at positions
// and sizes from a fixed seed, onto a blurred, muted copy of a photo. Each scene is cropped to a
// square or a portrait window; the score is the fraction of the subject's box inside the window,
// and the time is the median of `--iterations` crops per scene (decoded pixels in memory to
// cropped pixels in memory, both sides). Usage: bench-smartcrop [--iterations 9] [--scenes 24]

let iterations = Options.int("--iterations", 9)
let sceneCount = Options.int("--scenes", 24)
let corpora = testDataRoot()

func photo(_ path: String) throws -> Image {
    let image = try OrientTransformer().transform(try JPEGCoder().decode(try Data(contentsOf: corpora.appendingPathComponent(path)), options: DecodeOptions()))
    guard image.pixelFormat == .rgb8 else { throw BenchError("\(path) is \(image.pixelFormat), not RGB") }
    return image
}

let landscape = try photo("exif-orientation/recurser/Landscape_1.jpg")  // 1800x1200
let subjects: [Image] = [
    try photo("jpeg/libjpeg-turbo/testorig.jpg"),
    try CropTransformer(.rect(x: 1080, y: 60, width: 440, height: 1100)).transform(landscape),
    try CropTransformer(.rect(x: 250, y: 800, width: 300, height: 220)).transform(landscape),
    try CropTransformer(.rect(x: 1350, y: 300, width: 450, height: 450)).transform(landscape),
    try photo("jpeg/pillow/pil_sample_rgb.jpg"),
]

/// A small linear congruential generator: the same scenes on every machine.
struct Seeded {
    var state: UInt64
    mutating func next(_ range: ClosedRange<Int>) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return range.lowerBound + Int((state >> 33) % UInt64(range.count))
    }
}

struct Scene {
    var image: Image
    var subject: (x: Int, y: Int, width: Int, height: Int)
    var window: (width: Int, height: Int)
    var raw: URL
}

func backdrop(width: Int, height: Int) throws -> Image {
    let filled = try ResizeTransformer(.fill, width: width, height: height, filter: .box).transform(landscape)
    return try TintTransformer(RGBAColor(red: 128, green: 128, blue: 128, alpha: 150)).transform(try GaussianBlurTransformer(sigma: 12).transform(filled))
}

var random = Seeded(state: 38)
var scenes: [Scene] = []
let backdrops = [try backdrop(width: 720, height: 480), try backdrop(width: 480, height: 720)]
for index in 0..<sceneCount {
    var canvas = backdrops[index % 2]
    let portraitCanvas = index % 2 == 1
    let window = index % 4 < 2 ? (width: 340, height: 340) : (width: 270, height: portraitCanvas ? 460 : 400)
    let side = random.next(120...200)
    let subject = try ResizeTransformer(.fit, width: side, height: side, allowsEnlarging: true).transform(subjects[index % subjects.count])
    var x = 0, y = 0
    repeat {
        x = random.next(0...(canvas.width - subject.width))
        y = random.next(0...(canvas.height - subject.height))
    } while abs(x + subject.width / 2 - canvas.width / 2) < canvas.width / 5 && abs(y + subject.height / 2 - canvas.height / 2) < canvas.height / 5
    for row in 0..<subject.height {
        let from = row * subject.bytesPerRow, to = (y + row) * canvas.bytesPerRow + x * 3
        canvas.pixels.replaceSubrange(to..<to + subject.width * 3, with: subject.pixels[from..<from + subject.width * 3])
    }
    let name = "smartcrop-v1-\(index).raw"
    _ = try FixtureCache.data(name) { Data(canvas.pixels) }
    scenes.append(Scene(
        image: canvas, subject: (x, y, subject.width, subject.height), window: window, raw: FixtureCache.directory.appendingPathComponent(name)))
}

func kept(_ scene: Scene, left: Int, top: Int) -> Double {
    let s = scene.subject
    let width = max(0, min(left + scene.window.width, s.x + s.width) - max(left, s.x))
    let height = max(0, min(top + scene.window.height, s.y + s.height) - max(top, s.y))
    return Double(width * height) / Double(s.width * s.height)
}

print("bench-smartcrop: crop:W:H:smart vs libvips smartcrop(attention), \(scenes.count) scenes (720x480 and 480x720, subject 120-200 px off-centre), windows 340x340 and 270x400/460; median of \(iterations) per scene")
var oursKept: [Double] = [], oursTimes: [Double] = []
var centreKept: [Double] = []
for scene in scenes {
    let crop = CropTransformer(.placed(width: scene.window.width, height: scene.window.height, placement: .smart))
    let origin = try CropPlacement.smart.cropOrigin(width: scene.window.width, height: scene.window.height, in: scene.image)
    oursKept.append(kept(scene, left: origin.x, top: origin.y))
    centreKept.append(kept(scene, left: (scene.image.width - scene.window.width) / 2, top: (scene.image.height - scene.window.height) / 2))
    oursTimes.append(Measure.median(try Measure.samples(iterations: iterations) { _ = try crop.transform(scene.image) }))
}

let python = (ProcessInfo.processInfo.environment["IMAGEKERNEL_PEERS"] ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/imagekernel-peers").path) + "/vips/bin/python"
var vipsKept: [Double] = [], vipsTimes: [Double] = [], version = "?"
if FileManager.default.isExecutableFile(atPath: python) {
    let manifest = scenes.map { "\($0.raw.path)\t\($0.image.width)\t\($0.image.height)\t\($0.window.width)\t\($0.window.height)" }.joined(separator: "\n")
    let list = FixtureCache.directory.appendingPathComponent("smartcrop-v1.tsv")
    try manifest.write(to: list, atomically: true, encoding: .utf8)
    let output = try Peers.run(python, [benchmarksDirectory().appendingPathComponent("Scripts/vips_smartcrop.py").path, "\(iterations)", list.path])
    for (scene, line) in zip(scenes, output.split(separator: "\n")) {
        let fields = line.split(separator: "\t")
        guard fields.count == 4, let left = Int(fields[0]), let top = Int(fields[1]), let seconds = Double(fields[2]) else { throw BenchError("vips_smartcrop.py said \(line)") }
        vipsKept.append(kept(scene, left: left, top: top))
        vipsTimes.append(seconds)
        version = String(fields[3])
    }
} else {
    print("  libvips: no vips venv (run bash Benchmarks/peers/setup.sh)")
}

func mean(_ xs: [Double]) -> Double { xs.isEmpty ? .nan : xs.reduce(0, +) / Double(xs.count) }
for (index, scene) in scenes.enumerated() {
    let vips = index < vipsKept.count ? String(format: "%5.1f %%", vipsKept[index] * 100) : "    -"
    print(String(format: "  scene %2d %3dx%-3d subject %3dx%-3d at %3d,%-3d window %dx%d: kept ours %5.1f %%  libvips %@  centre %5.1f %%",
                 index, scene.image.width, scene.image.height, scene.subject.width, scene.subject.height, scene.subject.x, scene.subject.y,
                 scene.window.width, scene.window.height, oursKept[index] * 100, vips as NSString, centreKept[index] * 100))
}
print(String(format: "mean subject kept: ours %.1f %% (worst %.1f %%), libvips %@ %.1f %% (worst %.1f %%), a centred crop %.1f %%",
             mean(oursKept) * 100, (oursKept.min() ?? 0) * 100, version as NSString, mean(vipsKept) * 100, (vipsKept.min() ?? .nan) * 100, mean(centreKept) * 100))
if !vipsTimes.isEmpty {
    report("smart crop per scene vs libvips \(version)", ours: mean(oursTimes), baseline: mean(vipsTimes), goal: ">= 1x, kept >= 90 % and >= libvips'")
}
