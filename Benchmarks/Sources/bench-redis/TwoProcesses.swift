import BenchSupport
import CacheDisk
import CacheRedis
import CoderJPEG
import Foundation
import ImageKernel
import LoaderHTTP

/// Two processes with their own disk caches and one Redis tier: the second loads what the first did.
struct TwoProcesses {
    let redis: Redis
    let files: Int
    static let inFlight = 6

    func run() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("bench-redis-\(UUID().uuidString)")
        let root = work.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        var originBytes = 0
        for index in 0..<files {
            let data = try FixtureCache.data("redis-800x600-\(index).jpg") {
                let image = try Image(width: 800, height: 600, pixelFormat: .rgb8, pixels: SyntheticPhoto.rgb8(width: 800, height: 600, seed: UInt32(5000 + index)))
                return try JPEGCoder().encode(image, as: .jpeg, options: EncodeOptions(quality: 0.9))
            }
            originBytes += data.count
            guard FileManager.default.createFile(atPath: root.appendingPathComponent("p\(index).jpg").path, contents: data) else {
                throw BenchError("cannot write test files under \(root.path)")
            }
        }
        let nginx = try Nginx(serving: root, accessLog: true)
        defer { nginx.stop() }
        let list = work.appendingPathComponent("urls.txt")
        try (0..<files).map { nginx.url("p\($0).jpg").absoluteString }.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)

        _ = try redis.run("redis-cli", ["FLUSHALL"])
        var rows: [(String, Double, Int, Int, Int)] = []
        for role in ["first", "second"] {
            let (requestsBefore, inBefore, outBefore) = (nginx.requestCount(), try redis.info("total_net_input_bytes"), try redis.info("total_net_output_bytes"))
            let seconds = try Self.spawn(role: role, list: list, cacheDir: work.appendingPathComponent("cache-\(role)"), redis: redis.url)
            let requests = nginx.requestCount() - requestsBefore
            rows.append((role, seconds, requests, try redis.info("total_net_input_bytes") - inBefore, try redis.info("total_net_output_bytes") - outBefore))
        }
        print("two processes, \(files) JPEGs of 800x600 (\(originBytes / 1024) KB) from nginx, \(Self.inFlight) in flight, decode each; own disk caches, one Redis")
        for (role, seconds, requests, toRedis, fromRedis) in rows {
            print(String(format: "  %@ process: %.3f s wall, %d origin requests, %d KB to Redis, %d KB from Redis",
                         role as NSString, seconds, requests, toRedis / 1024, fromRedis / 1024))
        }
        report("second process (Redis) vs first (origin + decode)", ours: rows[1].1, baseline: rows[0].1)
    }

    /// Runs this executable in `role`; wall seconds of the whole process.
    static func spawn(role: String, list: URL, cacheDir: URL, redis: String) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--role", role, "--urls", list.path, "--cache-dir", cacheDir.path, "--redis", redis]
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("the \(role) process exited with \(process.terminationStatus)") }
        return Measure.seconds(clock.now - start)
    }

    /// The child: every URL through a manager over memory → disk → Redis; fails on any error.
    static func child(role: String) async throws {
        guard let list = Options.string("--urls"), let cacheDir = Options.string("--cache-dir"), let redis = Options.string("--redis") else {
            throw BenchError("--role needs --urls, --cache-dir and --redis")
        }
        let urls = try String(contentsOfFile: list, encoding: .utf8).split(separator: "\n").compactMap { URL(string: String($0)) }
        var http = HTTPLoader.Configuration()
        http.maxConcurrentDownloads = inFlight
        let loader = try HTTPLoader(configuration: http)
        defer { loader.shutdown() }
        let disk = DiskCache(directory: URL(fileURLWithPath: cacheDir))
        let cache = TieredCache(memory: MemoryCache(), backing: disk, lowerTiers: [try RedisCache(url: redis)])
        let manager = ImageManager(configuration: .init(cache: cache, loaders: LoaderRegistry([loader]), coders: CoderRegistry([JPEGCoder()])))
        let shared = try await withThrowingTaskGroup(of: Bool.self) { group in
            var (next, shared) = (0, 0)
            func add() {
                guard next < urls.count else { return }
                let url = urls[next]
                next += 1
                group.addTask { try await manager.image(for: url).isFromSharedCache }
            }
            for _ in 0..<inFlight { add() }
            while let fromShared = try await group.next() {
                shared += fromShared ? 1 : 0
                add()
            }
            return shared
        }
        disk.waitUntilIdle()
        if role == "second", shared != urls.count { throw BenchError("only \(shared) of \(urls.count) came from Redis") }
    }
}
