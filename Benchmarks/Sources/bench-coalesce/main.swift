import BenchSupport
import CoderJPEG
import Foundation
import ImageKernel
import LoaderHTTP

// Thundering herd (DESIGN.md manager rule 9): N concurrent `ImageManager.image(for:)` calls for
// the same URL — one 24 MP JPEG served by nginx on 127.0.0.1 — should cost one download and one
// decode, so the wall time for N callers stays close to the wall time for one.
// Goal for every N: wall(N)/wall(1) <= 1.3 and exactly 1 decode.
// Each round uses a fresh manager (MemoryCache, HTTPLoader, JPEGCoder wrapped to count decodes).
// Columns: loads = calls from the manager into the loader; HTTP = requests in nginx's access log.
// Usage: bench-coalesce [--rounds 3] [--counts 1,10,100,1000] [--round-limit 30]

let rounds = Options.int("--rounds", 3)
let counts = Options.string("--counts").map { $0.split(separator: ",").compactMap { Int($0) } } ?? [1, 10, 100, 1000]
// A round slower than this many seconds is not repeated (N full decodes of 24 MP take a while).
let roundLimit = Options.string("--round-limit").flatMap(Double.init) ?? 30

let (width, height) = (6000, 4000)
let jpeg = try FixtureCache.data("coalesce-6000x4000-q90.jpg") {
    let image = try Image(width: width, height: height, pixelFormat: .rgb8, pixels: SyntheticPhoto.rgb8(width: width, height: height, seed: 7))
    return try JPEGCoder().encode(image, as: .jpeg, options: EncodeOptions(quality: 0.9))
}
let root = FileManager.default.temporaryDirectory.appendingPathComponent("bench-coalesce-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }
try jpeg.write(to: root.appendingPathComponent("big.jpg"))
let nginx = try Nginx(serving: root, accessLog: true)
defer { nginx.stop() }
let url = nginx.url("big.jpg")

struct Round {
    var wall: Double
    var decodes: Int
    var loads: Int
    var httpRequests: Int
}

/// One round: a fresh manager, `callers` concurrent loads of `url`, all awaited.
func runRound(callers: Int) async throws -> Round {
    let loader = CountingLoader(try HTTPLoader())
    defer { (loader.base as? HTTPLoader)?.shutdown() }
    let coder = CountingCoder(JPEGCoder())
    let manager = ImageManager(cache: MemoryCache(), loaders: [loader], coders: [coder])
    let requestsBefore = nginx.requestCount()
    let start = ContinuousClock.now
    let sizes = try await withThrowingTaskGroup(of: PixelSize.self) { group in
        for _ in 0..<callers {
            group.addTask {
                let image = try await manager.image(for: url).image
                return PixelSize(width: image?.width ?? 0, height: image?.height ?? 0)
            }
        }
        var sizes: [PixelSize] = []
        for try await size in group { sizes.append(size) }
        return sizes
    }
    let wall = Measure.seconds(ContinuousClock.now - start)
    guard sizes.count == callers, sizes.allSatisfy({ $0 == PixelSize(width: width, height: height) }) else {
        throw BenchError("a caller did not get the \(width)x\(height) image: \(Set(sizes))")
    }
    return Round(wall: wall, decodes: coder.decodeCount, loads: loader.loadCount, httpRequests: nginx.requestCount() - requestsBefore)
}

/// "a" when every round agrees, else "min-max".
func span(_ values: [Int]) -> String {
    let low = values.min() ?? 0, high = values.max() ?? 0
    return low == high ? "\(low)" : "\(low)-\(high)"
}

print("bench-coalesce: one \(width)x\(height) JPEG (\(jpeg.count / 1024) KiB) from nginx on port \(nginx.port); median of up to \(rounds) rounds per N")
_ = try await runRound(callers: 1)  // warm nginx, the page cache and the code
let widths = [5, 9, 15, 7, 5, 4, 6, -6]
print(Table.row(["N", "wall ms", "wall(N)/wall(1)", "decodes", "loads", "HTTP", "rounds", "goal: ratio <= 1.3 and 1 decode"], widths))
var baseline: Double?
for callers in counts {
    var results: [Round] = []
    for _ in 0..<rounds {
        results.append(try await runRound(callers: callers))
        if results.last!.wall > roundLimit { break }
    }
    let wall = Measure.median(results.map(\.wall))
    if baseline == nil { baseline = wall }
    let ratio = wall / baseline!
    let decodes = results.map(\.decodes)
    let met = ratio <= 1.3 && decodes.allSatisfy { $0 == 1 }
    print(Table.row([
        "\(callers)", String(format: "%.1f", wall * 1000), String(format: "%.2f", ratio), span(decodes),
        span(results.map(\.loads)), span(results.map(\.httpRequests)), "\(results.count)", met ? "ok" : "MISSED",
    ], widths))
}
