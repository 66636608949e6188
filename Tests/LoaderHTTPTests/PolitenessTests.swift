import Foundation
import ImageKernelTestSupport
import ImageKernel
import LoaderHTTP
import Testing

/// Per-host politeness against real nginx: the adaptive per-host rate against a rate-limited
/// origin, and per-host limits that keep hosts apart.
@Suite("Per-host politeness", .serialized)
struct PolitenessTests {
    /// nginx allows 200 requests a second (burst 20) and refuses the excess with 429 and
    /// `Retry-After: 1`. 500 distinct 50 KB JPEGs at 16 loads at once: every one arrives byte-exact,
    /// and the origin sees at most 550 requests (the paced host is refused rarely).
    @Test(.enabled(if: NginxServer.isAvailable, "needs nginx"))
    func rateLimitedOriginDeliversEverythingWithFewRefusals() async throws {
        let files = BulkOrigin.distinctJPEGs(from: try TestData.data("jpeg/libjpeg-turbo/monkey12.jpg"), count: 500)
        let limits = BulkOrigin.rateLimited(rate: 200, burst: 20, retryAfter: 1)
        let nginx = try NginxServer(
            tls: false, files: Dictionary(uniqueKeysWithValues: files.map { ($0.name, $0.data) }), locations: limits.locations,
            http: limits.http, logFormat: "$uri $status")
        defer { nginx.stop() }
        var configuration = HTTPLoader.Configuration()
        configuration.maxConcurrentDownloads = 16
        let loader = try HTTPLoader(configuration: configuration)
        defer { loader.shutdown() }
        let manager = ImageManager(configuration: .init(loaders: LoaderRegistry([loader]), coders: CoderRegistry()))
        let prefetcher = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: 16, options: [.avoidDecode, .cacheMemoryOnly])
        let expected = Dictionary(uniqueKeysWithValues: files.map { (nginx.url("/\($0.name)"), $0.data) })
        let exact = Locked(0)
        let failures = Locked<[String]>([])
        var finished = (0, 0)
        for await event in prefetcher.events(for: files.map { nginx.url("/\($0.name)") }) {
            switch event {
            case .progress(let progress):
                switch progress.outcome {
                case .success(let result):
                    if let data = result.data, let url = progress.url, data == expected[url] { exact.withLock { $0 += 1 } }
                case .failure(let error): failures.withLock { $0.append("\(error)") }
                }
            case .completed(let done, let skipped): finished = (done, skipped)
            }
        }
        let log = nginx.accessLog().map { $0.split(separator: " ").map(String.init) }
        let refused = log.filter { $0.last == "429" }.count
        #expect(finished == (500, 0), "failures: \(failures.value.prefix(3))")
        #expect(exact.value == 500, "every image byte-exact")
        #expect(log.filter { $0.last == "200" }.count == 500)
        #expect(log.count <= 550, "\(log.count) origin requests, \(refused) refused")
        print("rate-limited origin: \(log.count) requests, \(refused) refused")
    }
}
