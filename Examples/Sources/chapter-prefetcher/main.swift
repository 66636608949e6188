// chapter-prefetcher: warm the cache with every page of a "chapter" (a list of URLs or paths),
// three at a time, reading progress from the prefetcher's AsyncSequence of events.
// Usage: chapter-prefetcher FILE...
import CoderPNG
import Foundation
import ImageKernel
import LoaderFile

let pages = CommandLine.arguments.dropFirst().map { URL(fileURLWithPath: $0) }
let cache = MemoryCache(costLimit: 64 << 20)
let manager = ImageManager(configuration: .init(
    cache: cache, loaders: LoaderRegistry([FileLoader()]), coders: CoderRegistry([PNGCoder()])))
let prefetcher = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: 3)

for await event in prefetcher.events(for: pages) {
    switch event {
    case .progress(let progress):
        let outcome = (try? progress.outcome.get()).map { "ok \($0.image?.width ?? 0)x\($0.image?.height ?? 0)" } ?? "skipped"
        print("[\(progress.finished)/\(progress.total)] \(progress.url?.lastPathComponent ?? "?") \(outcome)")
    case .completed(let finished, let skipped):
        print("chapter ready: \(finished - skipped) of \(finished) pages cached, \(cache.totalCost) bytes in memory")
    }
}
