import BenchSupport
import CoderJPEG
import CoderPNG
import Foundation
import ImageKernel

// Thumbnail grid: CoderJPEG and CoderPNG decoding with `thumbnailPixelSize` (square boxes) against
// a full decode of the same bytes, and against Pillow's draft() + thumbnail() on the same file in
// the same run (Pillow-SIMD where Benchmarks/peers/setup.sh built it, else stock Pillow). Both
// sides are timed in process, from bytes in memory, median of the iterations. Each cell times its
// thumbnail and a full decode alternately, so thumb/full compares decodes made under the same load.
// Sources: photo-like 400x300 and 6000x4000 images (gradients, waves and sensor noise) as JPEG
// (quality 90, 4:2:0) and PNG (RGB8, zlib level 6), generated once into a temporary directory.
// Flags: T = thumbnail decode slower than the full decode; P = ours slower than Pillow.
// Usage: bench-grid [--iterations-small 200] [--iterations-large 7]

let smallIterations = Options.int("--iterations-small", 200)
let largeIterations = Options.int("--iterations-large", 7)
let boxes = [32, 64, 128, 200, 256, 400]

struct Source {
    let label: String
    let file: URL
    let data: Data
    let coder: any ImageCoder
    let iterations: Int
}

var sources: [Source] = []
for (width, height) in [(400, 300), (6000, 4000)] {
    let iterations = width * height > 1_000_000 ? largeIterations : smallIterations
    let pixels = SyntheticPhoto.rgb8(width: width, height: height, seed: 3)
    let image = try Image(width: width, height: height, pixelFormat: .rgb8, pixels: pixels)
    for (format, coder, ext) in [(ImageFormat.jpeg, JPEGCoder() as any ImageCoder, "jpg"), (.png, PNGCoder(), "png")] {
        let name = "grid-\(width)x\(height).\(ext)"
        let data = try FixtureCache.data(name) {
            try coder.encode(image, as: format, options: EncodeOptions(quality: 0.9, compressionLevel: 6))
        }
        sources.append(Source(label: "\(ext.uppercased()) \(width)x\(height)", file: FixtureCache.directory.appendingPathComponent(name),
                              data: data, coder: coder, iterations: iterations))
    }
}

/// Median seconds of a thumbnail decode into `box` and of a full decode of the same bytes, timed
/// alternately (one of each per round, after one warm-up of each), so both see the same machine
/// load; and the thumbnail's size.
func timeCell(_ source: Source, box: Int) throws -> (thumb: Double, full: Double, size: PixelSize) {
    let thumbOptions = DecodeOptions(thumbnailPixelSize: PixelSize(width: box, height: box))
    let image = try source.coder.decode(source.data, options: thumbOptions)
    _ = try source.coder.decode(source.data, options: DecodeOptions())
    var thumbs: [Double] = [], fulls: [Double] = []
    let clock = ContinuousClock()
    for _ in 0..<source.iterations {
        var start = clock.now
        _ = try source.coder.decode(source.data, options: thumbOptions)
        thumbs.append(Measure.seconds(clock.now - start))
        start = clock.now
        _ = try source.coder.decode(source.data, options: DecodeOptions())
        fulls.append(Measure.seconds(clock.now - start))
    }
    return (Measure.median(thumbs), Measure.median(fulls), PixelSize(width: image.width, height: image.height))
}

/// Median seconds of full decodes and the decoded size.
func timeFull(_ source: Source) throws -> (seconds: Double, size: PixelSize) {
    let image = try source.coder.decode(source.data, options: DecodeOptions())
    let samples = try Measure.samples(iterations: source.iterations) { _ = try source.coder.decode(source.data, options: DecodeOptions()) }
    return (Measure.median(samples), PixelSize(width: image.width, height: image.height))
}

/// Pillow's medians per box (0 = full size) for one file, or nil when no Pillow is installed.
func pillow(_ source: Source) throws -> [Int: (seconds: Double, size: PixelSize)]? {
    guard let python = Peers.pillowPython()?.python else { return nil }
    let script = benchmarksDirectory().appendingPathComponent("Scripts/pillow_grid.py").path
    let output = try Peers.run(python, [script, "\(source.iterations)", source.file.path] + (boxes + [0]).map(String.init))
    var result: [Int: (seconds: Double, size: PixelSize)] = [:]
    for line in output.split(separator: "\n") {
        let fields = line.split(separator: "\t")
        guard fields.count == 4, let box = Int(fields[0]), let seconds = Double(fields[1]), let w = Int(fields[2]), let h = Int(fields[3]) else {
            throw BenchError("unexpected line from pillow_grid.py: \(line)")
        }
        result[box] = (seconds, PixelSize(width: w, height: h))
    }
    return result
}

let pillowLabel = Peers.pillowPython()?.label ?? "no Pillow (run Benchmarks/peers/setup.sh)"
print("bench-grid: thumbnail decode vs full decode vs \(pillowLabel); median of \(smallIterations) (400x300) / \(largeIterations) (6000x4000) iterations")
print("flags: T = thumb slower than full, P = ours slower than Pillow")
let widths = [-15, 5, -10, -10, 9, 9, 10, 9, 11, -5]
print(Table.row(["source", "box", "ours", "Pillow", "thumb ms", "full ms", "thumb/full", "Pillow ms", "ours/Pillow", "flags"], widths))
for source in sources {
    let full = try timeFull(source)
    var ours: [(box: Int, thumb: Double, full: Double, size: PixelSize)] = []
    for box in boxes {
        let cell = try timeCell(source, box: box)
        ours.append((box, cell.thumb, cell.full, cell.size))
    }
    let theirs = try pillow(source)  // right after ours, so both see similar machine load
    func row(_ box: String, _ seconds: Double, cellFull: Double, _ size: PixelSize, pillowCell: (seconds: Double, size: PixelSize)?, isFull: Bool) {
        let pillowMs = pillowCell.map { String(format: "%.3f", $0.seconds * 1000) } ?? "-"
        let versus = pillowCell.map { String(format: "%.2f", seconds / $0.seconds) } ?? "-"
        var flags = ""
        if !isFull, seconds > cellFull { flags += "T" }
        if let pillowCell, seconds > pillowCell.seconds { flags += "P" }
        print(Table.row([
            source.label, box, size.description, pillowCell?.size.description ?? "-",
            isFull ? "-" : String(format: "%.3f", seconds * 1000), String(format: "%.3f", cellFull * 1000),
            isFull ? "-" : String(format: "%.2f", seconds / cellFull), pillowMs, versus, flags,
        ], widths))
    }
    for cell in ours { row("\(cell.box)", cell.thumb, cellFull: cell.full, cell.size, pillowCell: theirs?[cell.box], isFull: false) }
    row("full", full.seconds, cellFull: full.seconds, full.size, pillowCell: theirs?[0], isFull: true)
}
