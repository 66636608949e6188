import BenchSupport
import Foundation
import ImageKernel
import LoaderHTTP

// LoaderHTTP benchmark (issue: HTTP loader): 2000 files of ~50 KB served by nginx on 127.0.0.1.
// Wall time of HTTPLoader fetching all of them with maxConcurrentDownloads N vs
// `curl --parallel --parallel-max N` fetching the same list (goal: >= 0.9x curl's throughput),
// and CPU seconds per 1000 requests for both (ours: this process; curl: its rusage as a child).
// Usage: bench-http [--files 2000] [--runs 5] [--loader-only]

let arguments = CommandLine.arguments
let fileCount = Options.int("--files", 2000)
let runs = Options.int("--runs", 5)

// Files: ~50 KB each (45–55 KB), pseudo-random bytes so nothing compresses.
let root = FileManager.default.temporaryDirectory.appendingPathComponent("bench-http-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }
/// xorshift64*: fast, seeded, good enough to defeat compression.
struct FastRandom: RandomNumberGenerator {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}
var generator = FastRandom()
var sizes: [Int] = []
for index in 0..<fileCount {
    let size = 45_000 + Int.random(in: 0...10_000, using: &generator)
    sizes.append(size)
    var words = [UInt64](repeating: 0, count: (size + 7) / 8)
    for i in words.indices { words[i] = generator.next() }
    let data = words.withUnsafeBytes { Data($0.prefix(size)) }
    // FileManager.createFile: Data.write fsyncs every file, which makes set-up crawl.
    guard FileManager.default.createFile(atPath: root.appendingPathComponent(String(format: "f%05d.bin", index)).path, contents: data) else {
        throw BenchError("cannot write test files under \(root.path)")
    }
}
let totalBytes = sizes.reduce(0, +)
let nginx = try Nginx(serving: root)
defer { nginx.stop() }
let urls = (0..<fileCount).map { URL(string: String(format: "http://127.0.0.1:%d/f%05d.bin", nginx.port, $0))! }
print(String(format: "bench-http: %d files, %.1f MB, nginx on port %d, median of %d runs", fileCount, Double(totalBytes) / 1e6, nginx.port, runs))

/// One curl run: wall seconds and CPU seconds of the curl process.
func runCurl(parallel: Int) throws -> (wall: Double, cpu: Double) {
    let config = root.appendingPathComponent("curl-\(parallel).conf")
    try urls.map { "url = \"\($0.absoluteString)\"\noutput = \"/dev/null\"\n" }.joined()
        .write(to: config, atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments = ["--silent", "--no-progress-meter", "--show-error", "--fail", "--parallel", "--parallel-max", "\(parallel)", "-K", config.path]
    let cpuBefore = Measure.childCPUSeconds()
    let start = ContinuousClock.now
    try process.run()
    process.waitUntilExit()
    let wall = Measure.seconds(ContinuousClock.now - start)
    guard process.terminationStatus == 0 else { throw BenchError("curl exited with \(process.terminationStatus)") }
    return (wall, Measure.childCPUSeconds() - cpuBefore)
}

/// One LoaderHTTP run: wall seconds and CPU seconds of this process.
func runLoader(parallel: Int) async throws -> (wall: Double, cpu: Double) {
    var configuration = HTTPLoader.Configuration()
    configuration.maxConcurrentDownloads = parallel
    let loader = try HTTPLoader(configuration: configuration)
    defer { loader.shutdown() }
    let cpuBefore = Measure.cpuSeconds()
    let start = ContinuousClock.now
    let received = try await withThrowingTaskGroup(of: Int.self) { group in
        for url in urls {
            group.addTask {
                try await loader.load(ImageRequest(url: url), options: [], context: ImageContext(), progress: { _ in }).data.count
            }
        }
        return try await group.reduce(0, +)
    }
    let wall = Measure.seconds(ContinuousClock.now - start)
    let cpu = Measure.cpuSeconds() - cpuBefore
    guard received == totalBytes else { throw BenchError("LoaderHTTP received \(received) of \(totalBytes) bytes") }
    return (wall, cpu)
}

if arguments.contains("--loader-only") {  // for profiling: LoaderHTTP alone, N=6
    for _ in 0..<runs { print(try await runLoader(parallel: 6)) }
    nginx.stop()
    exit(0)
}
_ = try runCurl(parallel: 6)  // warm nginx and the page cache
for parallel in [6, 16] {
    var ours: [(wall: Double, cpu: Double)] = []
    var curl: [(wall: Double, cpu: Double)] = []
    for _ in 0..<runs {
        curl.append(try runCurl(parallel: parallel))
        ours.append(try await runLoader(parallel: parallel))
    }
    let ourWall = Measure.median(ours.map(\.wall)), curlWall = Measure.median(curl.map(\.wall))
    let perThousand = 1000 / Double(fileCount)
    report("wall, \(fileCount) files, N=\(parallel) (vs curl --parallel)", ours: ourWall, baseline: curlWall,
           goal: String(format: "throughput %.0f vs %.0f req/s, goal >= 0.9x", Double(fileCount) / ourWall, Double(fileCount) / curlWall))
    report("CPU s per 1000 requests, N=\(parallel) (vs curl)", ours: Measure.median(ours.map(\.cpu)) * perThousand,
           baseline: Measure.median(curl.map(\.cpu)) * perThousand)
}
