import BenchSupport
import Foundation
import ImageKernel
import LoaderHTTP

/// 3. Per-host limits: the loader's own per-host lines against libcurl's
/// `CURLMOPT_MAX_HOST_CONNECTIONS`, both at 2 per host and 16 in all. One nginx listens on
/// 127.0.0.1, .2 and .3, allows 2 connections per address (`limit_conn`, 503 beyond) and sends
/// each 60 KB file at 40 KB/s (nginx sends the first second's share at once, the rest a second
/// later: about 1 s per response). The list is sorted by host, as a crawl's often is:
/// `perHost` files of host 1, then of host 2, then of host 3. Reported per way: wall time, 503s,
/// and when each host was first and last served (from the access log). No retries, so a 503 counts.
enum PerHostComparison {
    static let addresses = ["127.0.0.1", "127.0.0.2", "127.0.0.3"]

    static func run(root: URL, filesPerHost: Int, rate: String) async throws {
        let www = root.appendingPathComponent("per-host")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        for index in 0..<filesPerHost {
            let data = Data((0..<61_440).map { _ in UInt8.random(in: 0...255, using: &generator) })
            _ = FileManager.default.createFile(atPath: www.appendingPathComponent("f\(index).bin").path, contents: data)
        }
        let nginx = try Nginx(
            serving: www, accessLog: true, http: "limit_conn_zone $server_addr zone=hosts:1m;",
            locations: "location / { limit_conn hosts 2; limit_conn_status 503; limit_rate \(rate); }",
            logFormat: "$server_addr $status $msec", alsoListenOn: Array(addresses.dropFirst()))
        defer { nginx.stop() }
        let urls = addresses.flatMap { address in (0..<filesPerHost).map { nginx.url("f\($0).bin", address: address) } }
        print("bench-bulk: per-host limits, \(urls.count) files of 60 KB sorted by host over 3 addresses, 2 connections each (nginx limit_conn, 503 beyond), limit_rate \(rate) per response, 16 transfers in all")
        let widths = [-34, 10, 6, 8, 22, 22, 22]
        print(Table.row(["", "delivered", "503s", "wall s"] + addresses.map { "\($0) first-last s" }, widths))
        var walls: [Double] = []
        for inCurl in [false, true] {
            let mark = nginx.accessLog().count
            let startEpoch = Date().timeIntervalSince1970
            let (delivered, wall) = try await load(urls, inCurl: inCurl)
            walls.append(wall)
            let lines = nginx.accessLog().dropFirst(mark).map { $0.split(separator: " ") }.filter { $0.count == 3 }
            let refused = lines.filter { $0[1] == "503" }.count
            let spans = addresses.map { address -> String in
                let times = lines.filter { $0[0] == address }.compactMap { Double($0[2]) }.map { $0 - startEpoch }
                guard let first = times.min(), let last = times.max() else { return "-" }
                return String(format: "%.2f-%.2f", first, last)
            }
            let label = inCurl ? "CURLMOPT_MAX_HOST_CONNECTIONS 2" : "ImageKernel per-host lines (2)"
            print(Table.row([label, "\(delivered)/\(urls.count)", "\(refused)", String(format: "%.2f", wall)] + spans, widths))
        }
        report("per-host 2: wall time (vs CURLMOPT_MAX_HOST_CONNECTIONS)", ours: walls[0], baseline: walls[1])
    }

    private static func load(_ urls: [URL], inCurl: Bool) async throws -> (delivered: Int, wall: Double) {
        var http = HTTPLoader.Configuration()
        http.maxConcurrentDownloads = 16
        http.maxConcurrentDownloadsPerHost = 2
        http._limitsHostsInCurl = inCurl
        return try await prefetchBytes(urls, http: http, retryPolicy: .none)
    }
}

/// Prefetches `urls` as bytes (no decode, no cache) through an HTTPLoader made from `http`, 64
/// loads in flight: how many were delivered and the wall time.
func prefetchBytes(_ urls: [URL], http: HTTPLoader.Configuration, retryPolicy: RetryPolicy) async throws -> (delivered: Int, wall: Double) {
    let loader = try HTTPLoader(configuration: http)
    defer { loader.shutdown() }
    let manager = ImageManager(configuration: .init(cache: MemoryCache(), loaders: LoaderRegistry([loader]), coders: CoderRegistry()))
    let prefetcher = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: 64, options: .avoidDecode, retryPolicy: retryPolicy)
    var context = ImageContext()
    context.storeCacheType = ImageCacheType.none
    context.queryCacheType = ImageCacheType.none
    let start = ContinuousClock.now
    var delivered = 0
    for await event in prefetcher.events(for: urls, context: context) {
        if case .completed(let finished, let skipped) = event { delivered = finished - skipped }
    }
    return (delivered, Measure.seconds(ContinuousClock.now - start))
}
