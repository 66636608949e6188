import CacheDisk
import CoderJPEG
import CoderPNG
import Foundation
import ImageKernelTestSupport
import ImageKernel
import LoaderHTTP

/// The fault soak: loads through a server that misbehaves at random, with random cancels and
/// thumbnail sizes, into a 5 MB disk cache; it counts what happened and checks the promises.
final class Soak: Sendable {
    struct Counts: Sendable {
        var loads = 0
        var completions = 0
        var succeeded = 0
        var failed = 0
        var cancelRequests = 0
        var cancelledResults = 0
        var diskHits = 0
        var kinds: [FaultKind: Int] = [:]
        var errorCodes: [String: Int] = [:]
        var violations: [String] = []
    }

    let server: HTTPTestServer
    let files: [(name: String, data: Data)]
    let disk: DiskCache
    let loader: HTTPLoader
    let manager: ImageManager
    let counts = Locked(Counts())
    private let completionsByLoad = Locked<[Int: Int]>([:])

    init(files: [(name: String, data: Data)], cacheDirectory: URL) throws {
        server = try HTTPTestServer()
        self.files = files
        for file in files { server.addFile(file.name, data: file.data, etag: "\"\(file.name)\"") }
        var diskConfiguration = DiskCache.Configuration(directory: cacheDirectory)
        diskConfiguration.maxSize = 5 << 20
        disk = DiskCache(configuration: diskConfiguration)
        var http = HTTPLoader.Configuration()
        http.timeout = .seconds(1)
        http.maxBodySize = 4 << 20
        http.maxRedirects = 5
        http.maxConcurrentDownloads = 16
        loader = try HTTPLoader(configuration: http)
        manager = ImageManager(configuration: .init(
            cache: TieredCache(memory: MemoryCache(costLimit: 2 << 20), backing: disk),
            loaders: LoaderRegistry([loader]), coders: CoderRegistry([PNGCoder(), JPEGCoder()])))
    }

    /// One round: `width` loads at once, each with a random fault, thumbnail and maybe a cancel;
    /// returns when every one has completed.
    func round(width: Int, firstID: Int, using generator: inout some RandomNumberGenerator) async {
        await withTaskGroup(of: Void.self) { group in
            for offset in 0..<width {
                let id = firstID + offset
                let kind = FaultKind.random(using: &generator)
                let file = files[Int.random(in: 0..<files.count, using: &generator)]
                let url = server.url(kind.path(file: file.name, variant: Int.random(in: 0..<4, using: &generator)))
                var context = ImageContext()
                if Bool.random(using: &generator) {
                    let side = Int.random(in: 8...256, using: &generator)
                    context.thumbnailPixelSize = PixelSize(width: side, height: side)
                }
                let cancelAfter: Duration? = Int.random(in: 0..<4, using: &generator) == 0
                    ? .milliseconds(Int.random(in: 0...400, using: &generator)) : nil
                counts.withLock {
                    $0.loads += 1
                    $0.kinds[kind, default: 0] += 1
                }
                group.addTask { await self.load(id: id, url: url, kind: kind, origin: file.data, context: context, cancelAfter: cancelAfter) }
            }
        }
    }

    private func load(id: Int, url: URL, kind: FaultKind, origin: Data, context: ImageContext, cancelAfter: Duration?) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let finished = Locked(false)
            // retryFailed: a URL that failed before is loaded again, not answered from the blacklist.
            let operation = manager.loadImage(with: url, options: .retryFailed, context: context) { result in
                self.record(id: id, kind: kind, origin: origin, thumbnail: context.thumbnailPixelSize != nil, result)
                if finished.withLock({ let was = $0; $0 = true; return !was }) { done.resume() }
            }
            if let cancelAfter {
                counts.withLock { $0.cancelRequests += 1 }
                Task {
                    try? await Task.sleep(for: cancelAfter)
                    operation.cancel()
                }
            }
        }
    }

    private func record(id: Int, kind: FaultKind, origin: Data, thumbnail: Bool, _ result: Result<ImageResult, ImageKernelError>) {
        let seen = completionsByLoad.withLock { $0[id, default: 0] += 1; return $0[id]! }
        counts.withLock { counts in
            counts.completions += 1
            if seen > 1 { counts.violations.append("load \(id) completed \(seen) times") }
            switch result {
            case .success(let value):
                counts.succeeded += 1
                if value.cacheType == .disk { counts.diskHits += 1 }
                // Only whole answers give images; a short Content-Length is a whole answer too
                // (the body is what it announced), and may still decode.
                guard let served = kind.servedBody(of: origin) else {
                    counts.violations.append("a \(kind) answer gave an image (\(value.url))")
                    break
                }
                if !thumbnail, let data = value.data, data != served {
                    counts.violations.append("\(value.url) (\(value.cacheType)) is not the bytes the origin served")
                }
            case .failure(let error):
                counts.failed += 1
                if error.code == .cancelled { counts.cancelledResults += 1 }
                counts.errorCodes["\(error.code)", default: 0] += 1
            }
        }
    }

    /// Every entry the disk cache holds for an origin URL is the origin's bytes.
    func checkDiskEntries() -> (checked: Int, wrong: [String]) {
        var checked = 0
        var wrong: [String] = []
        for file in files {
            for variant in 0..<4 {
                for kind in [FaultKind.valid, .slowloris] {
                    let key = server.url(kind.path(file: file.name, variant: variant)).absoluteString
                    guard let data = disk.data(forKey: key) else { continue }
                    checked += 1
                    if data != file.data { wrong.append(key) }
                }
            }
        }
        return (checked, wrong)
    }

    /// Whether every load has completed exactly once.
    func everyLoadCompletedOnce(started: Int) -> Bool {
        completionsByLoad.withLock { $0.count == started && $0.values.allSatisfy { $0 == 1 } }
    }
}
