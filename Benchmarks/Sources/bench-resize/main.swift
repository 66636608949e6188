import BenchSupport
import Foundation
import ImageKernel
import Transformers

// Transformers against the fastest peers, timed in process on the same pixels in memory:
// Pillow-SIMD (AVX2 where setup.sh built it) and libvips 8.18 (pyvips + pyvips-binary), from
// `bash Benchmarks/peers/setup.sh`. Ours runs with every core (2 on the reference machine) and
// with one thread; the ratio is the faster peer's time over ours with every core (> 1: ours
// is faster). Sources are photo-like synthetic images (SyntheticPhoto), RGB and RGBA.
// Usage: bench-resize [--iterations 7] [--peer-iterations 7] [--only TEXT] [--no-peers] [--min]

let iterations = Options.int("--iterations", 7)
let peerIterations = Options.int("--peer-iterations", 7)
let only = Options.string("--only")
let withPeers = !CommandLine.arguments.contains("--no-peers")
/// `--min` reports our fastest run instead of the median (steadier while other work shares the machine).
let useMinimum = CommandLine.arguments.contains("--min")

struct Case {
    let name: String
    let width: Int, height: Int, bands: Int
    let spec: String
    /// The same operation in peers_resize.py's terms.
    let peerOp: String
}

let cases = [
    Case(name: "4000x3000 RGB -> 800x600 lanczos3", width: 4000, height: 3000, bands: 3, spec: "resize:stretch:800:600:lanczos3", peerOp: "resize,800,600,lanczos3"),
    Case(name: "4000x3000 RGB -> 800x600 bilinear", width: 4000, height: 3000, bands: 3, spec: "resize:stretch:800:600:bilinear", peerOp: "resize,800,600,bilinear"),
    Case(name: "4000x3000 RGBA -> 800x600 lanczos3", width: 4000, height: 3000, bands: 4, spec: "resize:stretch:800:600:lanczos3", peerOp: "resize,800,600,lanczos3"),
    Case(name: "4000x3000 RGBA -> 800x600 bilinear", width: 4000, height: 3000, bands: 4, spec: "resize:stretch:800:600:bilinear", peerOp: "resize,800,600,bilinear"),
    Case(name: "6000x4000 RGB -> 1920x1280 lanczos3", width: 6000, height: 4000, bands: 3, spec: "resize:stretch:1920:1280:lanczos3", peerOp: "resize,1920,1280,lanczos3"),
    Case(name: "800x600 RGB -> 4000x3000 lanczos3", width: 800, height: 600, bands: 3, spec: "resize:stretch:4000:3000:lanczos3:enlarge", peerOp: "resize,4000,3000,lanczos3"),
    Case(name: "2000x1500 RGB blur sigma 2", width: 2000, height: 1500, bands: 3, spec: "blur:2", peerOp: "blur,2"),
    Case(name: "2000x1500 RGB blur sigma 10", width: 2000, height: 1500, bands: 3, spec: "blur:10", peerOp: "blur,10"),
    Case(name: "400x300 RGB fill 300x200 (proxy cold)", width: 400, height: 300, bands: 3, spec: "resize:fill:300:200:lanczos3", peerOp: "fill,300,200"),
    Case(name: "4000x3000 RGB fill 300x200 + round 12", width: 4000, height: 3000, bands: 3, spec: "resize:fill:300:200:lanczos3/round:12", peerOp: "fillround,300,200,12"),
]

/// The source image of a case, and the raw file the peers read.
func source(_ c: Case) throws -> (Image, URL) {
    let rgb = SyntheticPhoto.rgb8(width: c.width, height: c.height, seed: 5)
    var pixels = rgb
    if c.bands == 4 {
        // Alpha: a soft diagonal ramp with a fully transparent band, so premultiplication matters.
        pixels = [UInt8](repeating: 0, count: c.width * c.height * 4)
        for y in 0..<c.height {
            for x in 0..<c.width {
                let i = y * c.width + x
                pixels[4 * i] = rgb[3 * i]
                pixels[4 * i + 1] = rgb[3 * i + 1]
                pixels[4 * i + 2] = rgb[3 * i + 2]
                pixels[4 * i + 3] = x < c.width / 8 ? 0 : UInt8(min(255, 64 + (x + y) * 191 / (c.width + c.height)))
            }
        }
    }
    let name = "resize-\(c.width)x\(c.height)x\(c.bands).raw"
    _ = try FixtureCache.data(name) { Data(pixels) }
    let format: PixelFormat = c.bands == 4 ? .rgba8 : .rgb8
    return (try Image(width: c.width, height: c.height, pixelFormat: format, pixels: pixels), FixtureCache.directory.appendingPathComponent(name))
}

func ours(_ image: Image, _ spec: String, threads: Int) throws -> (Double, PixelSize) {
    let chain = try TransformSpec(parsing: spec, threadLimit: threads)
    var size = PixelSize(width: 0, height: 0)
    let samples = try Measure.samples(iterations: iterations) {
        let out = try chain.transform(image)
        size = PixelSize(width: out.width, height: out.height)
    }
    return (useMinimum ? samples.min()! : Measure.median(samples), size)
}

/// Median seconds per case name from one peer, or an empty table when the peer is missing.
func peer(_ kind: String, python: String, _ arguments: [String]) -> [String: Double] {
    guard FileManager.default.isExecutableFile(atPath: python) else { return [:] }
    let script = benchmarksDirectory().appendingPathComponent("Scripts/peers_resize.py").path
    guard let output = try? Peers.run(python, [script, kind, "\(peerIterations)"] + arguments) else { return [:] }
    var result: [String: Double] = [:]
    for line in output.split(separator: "\n") {
        let f = line.split(separator: "\t").map(String.init)
        if f.count >= 2, let seconds = Double(f[1]) { result[f[0]] = seconds }
    }
    return result
}

var rows: [(Case, Double, Double, PixelSize, Int)] = []
var peerArguments: [String] = []
for (index, c) in cases.enumerated() where only.map({ c.name.contains($0) }) ?? true {
    let (image, file) = try source(c)
    let (two, size) = try ours(image, c.spec, threads: 0)
    let (one, _) = try ours(image, c.spec, threads: 1)
    rows.append((c, two, one, size, index))
    peerArguments.append(["case\(index)", file.path, "\(c.width)", "\(c.height)", "\(c.bands)", c.peerOp].joined(separator: ","))
}
// The proxy's planar path: the same fill on Y′CbCr 4:2:0 planes (luma 400x300, chroma 200x150).
if only.map({ "400x300 YCbCr 4:2:0 fill 300x200 (planes)".contains($0) }) ?? true {
    let rgb = SyntheticPhoto.rgb8(width: 400, height: 300, seed: 5)
    func plane(_ width: Int, _ height: Int, _ channel: Int) throws -> Image {
        var pixels = [UInt8](repeating: 0, count: width * height)
        let step = 400 / width
        for y in 0..<height { for x in 0..<width { pixels[y * width + x] = rgb[3 * ((y * step) * 400 + x * step) + channel] } }
        return try Image(width: width, height: height, pixelFormat: .gray8, pixels: pixels)
    }
    let planes = try YCbCrImage(luma: try plane(400, 300, 1), blueDifference: try plane(200, 150, 2), redDifference: try plane(200, 150, 0), subsampling: .s420)
    let resize = ResizeTransformer(.fill, width: 300, height: 200)
    for threads in [0, 1] {
        let samples = try TransformThreads.$limit.withValue(threads == 0 ? nil : 1) {
            try Measure.samples(iterations: iterations) { _ = try resize.transform(planes, subsampling: .s420) }
        }
        print("400x300 YCbCr 4:2:0 fill 300x200 (planes), \(threads == 0 ? "every core" : "one thread"): \(String(format: "%.3f", (useMinimum ? samples.min()! : Measure.median(samples)) * 1000)) ms")
    }
}

let root = ProcessInfo.processInfo.environment["IMAGEKERNEL_PEERS"]
    ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/imagekernel-peers").path
let pillow = !withPeers ? [:] : peer("pillow", python: "\(root)/pillow-simd/bin/python", peerArguments)
let vips = !withPeers ? [:] : peer("vips", python: "\(root)/vips/bin/python", peerArguments)

let widths = [-38, 11, 11, 12, 11, 8]
print("cores: \(ProcessInfo.processInfo.activeProcessorCount); median ms; ratio = faster peer / ours (> 1: ours faster)")
print(Table.row(["operation", "ours", "ours 1t", "Pillow-SIMD", "vips 8.18", "ratio"], widths))
func ms(_ seconds: Double?) -> String { seconds.map { String(format: $0 < 0.01 ? "%.3f" : "%.1f", $0 * 1000) } ?? "-" }
for (c, two, one, _, index) in rows {
    let peers = [pillow["case\(index)"], vips["case\(index)"]].compactMap { $0 }
    let ratio = peers.min().map { String(format: "%.2fx", $0 / two) } ?? "-"
    print(Table.row([c.name, ms(two), ms(one), ms(pillow["case\(index)"]), ms(vips["case\(index)"]), ratio], widths))
}
