import BenchSupport
import CacheDisk
import CoderJPEG
import CoderPNG
import Foundation
import ImageKernel
import LoaderHTTP

// End to end: 500 distinct 400x300 JPEGs served by nginx on 127.0.0.1, each turned into a 128x128
// thumbnail through ImageManager (HTTPLoader, JPEGCoder + PNGCoder, context.thumbnailPixelSize,
// TieredCache(memory, DiskCache(fresh directory))) with 12 loads in flight, against
//   python: requests + Pillow (Pillow-SIMD where built), 6 threads, GET + open + draft +
//           thumbnail + save JPEG (Scripts/pillow_e2e.py; its own clock, so start-up is excluded);
//   curl:   `curl --parallel --parallel-max 12` downloading the same 500 URLs to files, no decoding.
// Each round starts cold (fresh manager, cache directory and output directories); median of rounds.
// Usage: bench-e2e [--files 500] [--rounds 3] [--in-flight 12] [--python-threads 6]

let fileCount = Options.int("--files", 500)
let rounds = Options.int("--rounds", 3)
let inFlight = Options.int("--in-flight", 12)
let pythonThreads = Options.int("--python-threads", 6)
let box = PixelSize(width: 128, height: 128)

let work = FileManager.default.temporaryDirectory.appendingPathComponent("bench-e2e-\(UUID().uuidString)")
let root = work.appendingPathComponent("www")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }
var totalBytes = 0
for index in 0..<fileCount {
    let data = try FixtureCache.data("e2e-400x300-\(index).jpg") {
        let image = try Image(width: 400, height: 300, pixelFormat: .rgb8, pixels: SyntheticPhoto.rgb8(width: 400, height: 300, seed: UInt32(1000 + index)))
        return try JPEGCoder().encode(image, as: .jpeg, options: EncodeOptions(quality: 0.9))
    }
    totalBytes += data.count
    // FileManager.createFile: Data.write fsyncs every file, which makes set-up crawl.
    guard FileManager.default.createFile(atPath: root.appendingPathComponent(String(format: "p%05d.jpg", index)).path, contents: data) else {
        throw BenchError("cannot write test files under \(root.path)")
    }
}
let nginx = try Nginx(serving: root)
defer { nginx.stop() }
let urls = (0..<fileCount).map { nginx.url(String(format: "p%05d.jpg", $0)) }
let urlList = work.appendingPathComponent("urls.txt")
try urls.map { $0.absoluteString + "\n" }.joined().write(to: urlList, atomically: true, encoding: .utf8)

/// A fresh, empty directory under the work directory.
func freshDirectory(_ name: String, round: Int) throws -> URL {
    let dir = work.appendingPathComponent("\(name)-\(round)")
    try? FileManager.default.removeItem(at: dir)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

/// Ours: every URL through a fresh manager, `inFlight` loads at a time; wall seconds.
func runOurs(round: Int) async throws -> Double {
    var configuration = HTTPLoader.Configuration()
    configuration.maxConcurrentDownloads = inFlight
    let loader = try HTTPLoader(configuration: configuration)
    defer { loader.shutdown() }
    let cache = TieredCache(memory: MemoryCache(), backing: DiskCache(directory: try freshDirectory("cache", round: round)))
    let manager = ImageManager(cache: cache, loaders: [loader], coders: [PNGCoder(), JPEGCoder()])
    let context: ImageContext = {
        var context = ImageContext()
        context.thumbnailPixelSize = box
        return context
    }()
    let thumbnail: @Sendable (URL) async throws -> PixelSize = { url in
        let image = try await manager.image(for: url, context: context).image
        return PixelSize(width: image?.width ?? 0, height: image?.height ?? 0)
    }
    let start = ContinuousClock.now
    let thumbnails = try await withThrowingTaskGroup(of: PixelSize.self) { group in
        var pending = urls.makeIterator()
        for _ in 0..<inFlight {
            guard let url = pending.next() else { break }
            group.addTask { try await thumbnail(url) }
        }
        var sizes: [PixelSize] = []
        for try await size in group {
            sizes.append(size)
            if let url = pending.next() { group.addTask { try await thumbnail(url) } }
        }
        return sizes
    }
    let wall = Measure.seconds(ContinuousClock.now - start)
    guard thumbnails.count == fileCount, thumbnails.allSatisfy({ $0 == PixelSize(width: 128, height: 96) }) else {
        throw BenchError("ours: expected \(fileCount) thumbnails of 128x96, got \(Set(thumbnails))")
    }
    return wall
}

/// Python + Pillow: the script's own wall seconds.
func runPython(_ python: String, round: Int) throws -> Double {
    let out = try freshDirectory("python", round: round)
    let script = benchmarksDirectory().appendingPathComponent("Scripts/pillow_e2e.py").path
    let output = try Peers.run(python, [script, urlList.path, out.path, "\(pythonThreads)", "\(box.width)"])
    let fields = output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\t")
    guard fields.count == 2, let wall = Double(fields[0]), Int(fields[1]) == fileCount else {
        throw BenchError("unexpected output from pillow_e2e.py: \(output)")
    }
    return wall
}

/// curl, download only, to files; wall seconds around the process.
func runCurl(round: Int) throws -> Double {
    let out = try freshDirectory("curl", round: round)
    let config = work.appendingPathComponent("curl.conf")
    try urls.enumerated().map { "url = \"\($1.absoluteString)\"\noutput = \"\(out.path)/\(String(format: "%05d", $0)).jpg\"\n" }.joined()
        .write(to: config, atomically: true, encoding: .utf8)
    let start = ContinuousClock.now
    _ = try Peers.run("/usr/bin/curl", ["--silent", "--no-progress-meter", "--show-error", "--fail", "--parallel", "--parallel-max", "\(inFlight)", "-K", config.path])
    return Measure.seconds(ContinuousClock.now - start)
}

let pillow = Peers.pillowPython()
print(String(format: "bench-e2e: %d distinct 400x300 JPEGs (%.1f MB) from nginx on port %d -> 128x128 thumbnails; median of %d cold rounds",
             fileCount, Double(totalBytes) / 1e6, nginx.port, rounds))
print("ours: ImageManager, \(inFlight) in flight (HTTPLoader maxConcurrentDownloads \(inFlight)), TieredCache(memory, DiskCache)")
print("python: \(pillow?.label ?? "not found (run Benchmarks/peers/setup.sh)") + requests, \(pythonThreads) threads; curl: --parallel-max \(inFlight), download only")
_ = try runCurl(round: -1)  // warm nginx and the page cache
var ours: [Double] = [], python: [Double] = [], curl: [Double] = []
for round in 0..<rounds {
    curl.append(try runCurl(round: round))
    if let pillow { python.append(try runPython(pillow.python, round: round)) }
    ours.append(try await runOurs(round: round))
}
let oursWall = Measure.median(ours), curlWall = Measure.median(curl)
print("                     wall s   images/s")
print(String(format: "ours               %8.3f   %8.0f", oursWall, Double(fileCount) / oursWall))
if !python.isEmpty {
    let pythonWall = Measure.median(python)
    print(String(format: "python + Pillow    %8.3f   %8.0f", pythonWall, Double(fileCount) / pythonWall))
}
print(String(format: "curl (download)    %8.3f   %8.0f", curlWall, Double(fileCount) / curlWall))
if !python.isEmpty {
    print(String(format: "speed-up over python (python s / ours s): %.2fx", Measure.median(python) / oursWall))
}
print(String(format: "vs curl download only (curl s / ours s):  %.2fx", curlWall / oursWall))
