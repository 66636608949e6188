import BenchSupport
import CacheDisk
import CoderJPEG
import CoderPNG
import Foundation
import ImageKernel
import LoaderHTTP

// Bulk loading benchmark (issue 19).
// 1. A rate-limited origin: nginx on 127.0.0.1 allowing 200 requests/s (burst 20, nodelay) and
//    refusing the excess with 429 + `Retry-After: 1`; 500 distinct ~50 KB JPEGs, 16 at once.
//    Ours (ImagePrefetcher with the CLI's defaults: --per-host 6, --retries 4; bytes only) vs
//    `curl --parallel --parallel-max 16 --retry 10`: delivered, origin requests, 429s, wall time
//    against the origin's bound (500 / 200 per s = 2.5 s). Goal: 500/500, <= 1.1x the requests,
//    <= 1.3x the bound.
// 2. Prefetch of 10^4, 10^5, 10^6 URLs: one tiny PNG on nginx under distinct query strings, each
//    size in its own child process (peak RSS is per process): peak RSS and images per second,
//    with no cache (the prefetch pipeline: prefetcher, manager, loader, decoder) and, for the
//    sizes in --disk-sizes, with the CLI's disk cache. Goal: RSS and throughput flat within 20 %.
//    The children take outcomes through the prefetcher's callbacks, as the CLI does; `--stream`
//    reads them from `events(contentsOf:)` instead, whose buffer grows when the reader lags.
// 3. Per-host limits: the loader's own per-host lines vs libcurl's CURLMOPT_MAX_HOST_CONNECTIONS on
//    three loopback addresses with `limit_conn 2` (PerHost.swift); `--host-rate 0` sends at full speed.
// Usage: bench-bulk [--skip-hosts] [--sizes 10000,100000,1000000] [--disk-sizes 10000,100000,1000000] [--skip-origin] [--skip-scale] [--stream]

let arguments = CommandLine.arguments

/// URLs `base?i=0` … `base?i=count-1`, made as they are read.
struct NumberedURLs: Sequence, Sendable {
    let base: String
    let count: Int
    func makeIterator() -> AnyIterator<URL?> {
        var index = 0
        return AnyIterator {
            guard index < count else { return nil }
            defer { index += 1 }
            return URL(string: "\(base)?i=\(index)")
        }
    }
}

// MARK: Child: one prefetch of --child N URLs of --url, printing `RESULT finished skipped seconds rss_mb`.

if let count = Options.string("--child").flatMap(Int.init), let base = Options.string("--url") {
    var http = HTTPLoader.Configuration()
    http.maxConcurrentDownloads = 16
    let loader = try HTTPLoader(configuration: http)
    var context = ImageContext()
    let cache: any ImageCache
    if let directory = Options.string("--disk") {
        // As `imagekernel prefetch` opens it: no in-memory index (a prefetch never reads back).
        cache = DiskCache(configuration: .init(directory: URL(fileURLWithPath: directory), maxIndexedEntries: 0))
        context.storeCacheType = .disk
        context.queryCacheType = .disk
    } else {
        cache = MemoryCache()
        context.storeCacheType = ImageCacheType.none
        context.queryCacheType = ImageCacheType.none
    }
    let manager = ImageManager(configuration: .init(cache: cache, loaders: LoaderRegistry([loader]), coders: CoderRegistry([PNGCoder()])))
    let prefetcher = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: 16)
    let start = ContinuousClock.now
    var summary = (0, 0)
    if arguments.contains("--stream") {
        for await event in prefetcher.events(contentsOf: NumberedURLs(base: base, count: count), total: count, context: context) {
            if case .completed(let finished, let skipped) = event { summary = (finished, skipped) }
        }
    } else {
        summary = await withCheckedContinuation { continuation in
            prefetcher.prefetch(contentsOf: NumberedURLs(base: base, count: count), total: count, context: context, completion: { finished, skipped in
                continuation.resume(returning: (finished, skipped))
            })
        }
    }
    let seconds = Measure.seconds(ContinuousClock.now - start)
    FileHandle.standardError.write(Data("child \(count)\(cache is DiskCache ? " disk" : ""): peak RSS \(Measure.peakRSSMegabytes()) MB when the prefetch completed (getrusage's ru_maxrss, which counts the parent's peak too: \(Measure.rusageMaxRSSMegabytes()) MB)\n".utf8))
    (cache as? DiskCache)?.waitUntilIdle()
    print("RESULT \(summary.0) \(summary.1) \(seconds) \(Measure.peakRSSMegabytes())")
    loader.shutdown()
    exit(0)
}

let root = FileManager.default.temporaryDirectory.appendingPathComponent("bench-bulk-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }

// MARK: 1. The rate-limited origin

if !arguments.contains("--skip-origin") {
    let names = (0..<500).map { String(format: "img%03d.jpg", $0) }
    var bytes = 0
    for (index, name) in names.enumerated() {
        let data = try FixtureCache.data("bulk640-\(name)") {
            let image = try Image(width: 640, height: 480, pixelFormat: .rgb8, pixels: SyntheticPhoto.rgb8(width: 640, height: 480, seed: UInt32(5000 + index)))
            return try JPEGCoder().encode(image, as: .jpeg, options: EncodeOptions(quality: 0.92))
        }
        bytes += data.count
        guard FileManager.default.createFile(atPath: root.appendingPathComponent(name).path, contents: data) else { throw BenchError("cannot write \(name)") }
    }
    let nginx = try Nginx(
        serving: root, accessLog: true, http: "limit_req_zone $server_addr zone=bulk:1m rate=200r/s;",
        locations: "location / { limit_req zone=bulk burst=20 nodelay; limit_req_status 429; add_header Retry-After 1 always; }",
        logFormat: "$status")
    defer { nginx.stop() }
    let urls = names.map { nginx.url($0) }
    let bound = Double(names.count) / 200
    print(String(format: "bench-bulk: 429 origin, %d distinct JPEGs (%.0f KB average), 200 r/s burst 20, Retry-After: 1, 16 at once; bound %.1f s",
                 names.count, Double(bytes) / Double(names.count) / 1000, bound))

    /// Requests and 429s the origin logged since `mark` lines.
    func originCounts(since mark: Int) -> (requests: Int, refused: Int) {
        let lines = nginx.accessLog().dropFirst(mark)
        return (lines.count, lines.filter { $0 == "429" }.count)
    }

    func runOurs() async throws -> (delivered: Int, wall: Double) {
        var http = HTTPLoader.Configuration()
        http.maxConcurrentDownloads = 16
        http.maxConcurrentDownloadsPerHost = 6
        return try await prefetchBytes(
            urls, http: http,
            retryPolicy: RetryPolicy(maxAttempts: 5, baseDelay: .milliseconds(200), maxDelay: .seconds(10), deadline: .seconds(120)))
    }

    func runCurl() throws -> (delivered: Int, wall: Double) {
        // Files, not /dev/null: curl truncates the output before a retry and gives up on a device.
        let out = root.appendingPathComponent("curl-out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: out) }
        let config = root.appendingPathComponent("curl.conf")
        try urls.map { "url = \"\($0.absoluteString)\"\noutput = \"\(out.path)/\($0.lastPathComponent)\"\n" }.joined()
            .write(to: config, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["--silent", "--parallel", "--parallel-max", "16", "--retry", "10", "-w", "%{http_code}\\n", "-K", config.path]
        let codes = Pipe()
        process.standardOutput = codes
        process.standardError = FileHandle.nullDevice
        let start = ContinuousClock.now
        try process.run()
        let text = String(decoding: codes.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let wall = Measure.seconds(ContinuousClock.now - start)
        return (text.split(separator: "\n").filter { $0 == "200" }.count, wall)
    }

    let widths = [-26, 10, 9, 6, 9, 10, 9]
    print(Table.row(["", "delivered", "requests", "429s", "wall s", "x bound", "x reqs"], widths))
    var results: [(String, (delivered: Int, wall: Double), (requests: Int, refused: Int))] = []
    for (label, run) in [("ImageKernel prefetch", { try await runOurs() }), ("curl --parallel --retry 10", { try runCurl() })] as [(String, () async throws -> (delivered: Int, wall: Double))] {
        try await Task.sleep(for: .seconds(2))  // the origin's bucket refills between runs
        let mark = nginx.accessLog().count
        let outcome = try await run()
        let counts = originCounts(since: mark)
        results.append((label, outcome, counts))
        print(Table.row([label, "\(outcome.delivered)/\(urls.count)", "\(counts.requests)", "\(counts.refused)", String(format: "%.2f", outcome.wall),
                         String(format: "%.2fx", outcome.wall / bound), String(format: "%.2fx", Double(counts.requests) / Double(urls.count))], widths))
    }
    if results.count == 2 {
        report("429 origin: wall time (vs curl --retry 10)", ours: results[0].1.wall, baseline: results[1].1.wall)
        report("429 origin: origin requests (vs curl)", ours: Double(results[0].2.requests), baseline: Double(results[1].2.requests), unit: "req")
        print(String(format: "goal: 500/500 delivered (%d), <= 1.1x requests (%.2fx), <= 1.3x the bound (%.2fx)",
                     results[0].1.delivered, Double(results[0].2.requests) / 500, results[0].1.wall / bound))
    }
}

// MARK: 3. Per-host limits

if !arguments.contains("--skip-hosts") {
    try await PerHostComparison.run(root: root, filesPerHost: Options.int("--files-per-host", 20), rate: Options.string("--host-rate") ?? "40k")
}

// MARK: 2. Flat memory

if !arguments.contains("--skip-scale") {
    let sizes = (Options.string("--sizes") ?? "10000,100000,1000000").split(separator: ",").compactMap { Int($0) }
    let diskSizes = Set((Options.string("--disk-sizes") ?? "10000,100000,1000000").split(separator: ",").compactMap { Int($0) })
    let png = try PNGCoder().encode(try Image(width: 8, height: 8, pixelFormat: .rgba8, pixels: [UInt8](repeating: 200, count: 8 * 8 * 4)), as: .png, options: EncodeOptions())
    let www = root.appendingPathComponent("www")
    try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: www.appendingPathComponent("tiny.png").path, contents: png)
    let nginx = try Nginx(serving: www)
    defer { nginx.stop() }
    print("bench-bulk: prefetch of N URLs of one \(png.count)-byte PNG with distinct query strings, 16 at once, one child process per run")
    let widths = [-12, 10, 10, 8, 11, 10]
    print(Table.row(["cache", "URLs", "finished", "failed", "images/s", "peak MB"], widths))
    let executable = Bundle.main.executablePath ?? arguments[0]
    for disk in [false, true] {
        var rows: [(rate: Double, rss: Double)] = []
        for size in sizes where !disk || diskSizes.contains(size) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            var childArguments = ["--child", "\(size)", "--url", nginx.url("tiny.png").absoluteString] + arguments.filter { $0 == "--stream" }
            let cacheDirectory = root.appendingPathComponent("cache-\(size)")
            if disk { childArguments += ["--disk", cacheDirectory.path] }
            process.arguments = childArguments
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: cacheDirectory)
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("RESULT ") }) else { throw BenchError("child failed: \(text)") }
            let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
            let (finished, skipped, seconds, rss) = (fields[0], fields[1], fields[2], fields[3])
            rows.append((finished / seconds, rss))
            print(Table.row([disk ? "disk" : "none", "\(size)", "\(Int(finished))", "\(Int(skipped))", String(format: "%.0f", (finished - skipped) / seconds),
                             String(format: "%.1f", rss)], widths))
        }
        if let first = rows.first, let last = rows.last, rows.count > 1 {
            print(String(format: "  %@: peak RSS %.2fx and images/s %.2fx from the smallest to the largest run (goal: within 1.2x)",
                         disk ? "disk cache" : "no cache", last.rss / first.rss, last.rate / first.rate))
        }
    }
}
