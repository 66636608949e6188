import BenchSupport
import Foundation
import ImageKernel
import Synchronization

// Kernel benchmarks (issue 2):
// 1. MemoryCache hit vs a Mutex-guarded Dictionary lookup of the same entries (goal ≤ 2× its time).
// 2. ImageManager load that hits memory vs the raw MemoryCache lookup (ratio reported).
// 3. 1000 concurrent loads through the manager with an in-memory loader (loads per second).

struct InMemoryLoader: ImageLoader {
    let name = "InMemoryLoader"
    let payload: Data
    func canLoad(_ url: URL) -> Bool { url.scheme == "mem" }
    func load(_ request: ImageRequest, options: LoaderOptions, context: ImageContext,
              progress: @escaping @Sendable (LoadProgress) -> Void) async throws(ImageKernelError) -> LoadResult {
        progress(LoadProgress(received: Int64(payload.count), expected: Int64(payload.count)))
        return LoadResult(data: payload, url: request.url)
    }
}

/// Decodes "TINY" + 1 byte into a 1×1 gray image: the benchmark measures the pipeline, not a codec.
struct TinyCoder: ImageCoder {
    let name = "TinyCoder"
    func canDecode(_ data: Data) -> Bool { data.starts(with: Array("TINY".utf8)) }
    func decode(_ data: Data, options: DecodeOptions) throws(ImageKernelError) -> Image {
        try Image(width: 1, height: 1, pixelFormat: .gray8, pixels: [data.last ?? 0])
    }
}

let keys = (0..<1000).map { "https://example.com/images/\($0).png" }
let image = try! Image(width: 16, height: 16, pixelFormat: .rgba8, pixels: [UInt8](repeating: 7, count: 1024))
let lookups = 1_000_000

// 1. Memory cache hit vs Mutex<Dictionary>.
let cache = MemoryCache()
for key in keys { cache.setImage(image, forKey: key) }
let dictionary = Mutex<[String: CacheEntry]>(Dictionary(uniqueKeysWithValues: keys.map { ($0, CacheEntry(image: image)) }))
var sink = 0
let cacheTimes = Measure.samples(iterations: 7) {
    for i in 0..<lookups { if cache.entry(forKey: keys[i % 1000]) != nil { sink &+= 1 } }
}
let dictTimes = Measure.samples(iterations: 7) {
    for i in 0..<lookups { if dictionary.withLock({ $0[keys[i % 1000]] }) != nil { sink &+= 1 } }
}
let cacheHit = Measure.median(cacheTimes) / Double(lookups)
let dictHit = Measure.median(dictTimes) / Double(lookups)
report("memory-cache hit vs Mutex<Dictionary> lookup", ours: cacheHit * 1e9, baseline: dictHit * 1e9, unit: "ns",
       goal: String(format: "time ratio %.2fx (goal <= 2x)", cacheHit / dictHit))

// 2. Manager load hitting memory vs the raw memory-cache lookup.
let manager = ImageManager(configuration: .init(
    cache: cache, loaders: LoaderRegistry([InMemoryLoader(payload: Data("TINY!".utf8))]),
    coders: CoderRegistry([TinyCoder()]), cacheKeyFilter: ClosureCacheKeyFilter { $0.absoluteString }))
let urls = keys.map { URL(string: $0)! }
let managerLoads = 100_000
/// Seconds per load of `managerLoads` loads through `manager`, every one a memory hit (median of 5).
/// Run off the main actor: top-level code is main-actor isolated and every await would hop threads.
func hitTime(_ manager: ImageManager) async -> Double {
    let times = await Task.detached {
        var hits = 0
        let times = await Measure.samples(iterations: 5) {
            for i in 0..<managerLoads { if (try? await manager.image(for: urls[i % 1000]))?.image != nil { hits &+= 1 } }
        }
        precondition(hits > 0)
        return times
    }.value
    return Measure.median(times) / Double(managerLoads)
}
let managerHit = await hitTime(manager)
report("manager memory hit vs raw memory-cache lookup", ours: managerHit * 1e9, baseline: cacheHit * 1e9, unit: "ns",
       goal: String(format: "manager costs %.1fx a raw lookup", managerHit / cacheHit))

// 2b. The same hits through a cache that does not expose its memory tier (a wrapper, as a
// counting or logging cache is): every load claims the result and queries memory, which is what
// every hit cost before `ImageCache.memoryTier` (issue 46 part 4: goal <= 2 µs for the direct hit).
final class OpaqueCache: ImageCache {
    let inner: MemoryCache
    init(_ inner: MemoryCache) { self.inner = inner }
    var name: String { "OpaqueCache" }
    func query(key: String, type: ImageCacheType) async throws(ImageKernelError) -> CacheQueryResult? { try await inner.query(key: key, type: type) }
    func store(_ entry: CacheEntry, forKey key: String, type: ImageCacheType) async throws(ImageKernelError) { try await inner.store(entry, forKey: key, type: type) }
    func remove(key: String, type: ImageCacheType) async throws(ImageKernelError) { try await inner.remove(key: key, type: type) }
    func contains(key: String, type: ImageCacheType) async -> ImageCacheType { await inner.contains(key: key, type: type) }
    func clear(type: ImageCacheType) async throws(ImageKernelError) { try await inner.clear(type: type) }
}
let claimingManager = ImageManager(configuration: .init(
    cache: OpaqueCache(cache), loaders: LoaderRegistry([InMemoryLoader(payload: Data("TINY!".utf8))]),
    coders: CoderRegistry([TinyCoder()]), cacheKeyFilter: ClosureCacheKeyFilter { $0.absoluteString }))
let claimingHit = await hitTime(claimingManager)
report("manager memory hit: direct vs claim and query", ours: managerHit * 1e9, baseline: claimingHit * 1e9, unit: "ns",
       goal: String(format: "direct hit %.2f µs (goal <= 2 µs); claim path %.2f µs", managerHit * 1e6, claimingHit * 1e6))

// 3. 1000 concurrent loads through the manager (cache misses, in-memory loader, tiny decode).
let missManager = ImageManager(configuration: .init(
    cache: MemoryCache(), loaders: LoaderRegistry([InMemoryLoader(payload: Data("TINY!".utf8))]),
    coders: CoderRegistry([TinyCoder()])))
let missURLs = (0..<1000).map { URL(string: "mem://host/\($0).tiny")! }
let concurrentTimes = await Measure.samples(iterations: 7) {
    await withTaskGroup(of: Bool.self) { group in
        for url in missURLs { group.addTask { (try? await missManager.image(for: url, options: .fromLoaderOnly)) != nil } }
        for await ok in group where ok { sink &+= 1 }
    }
}
let perSecond = 1000 / Measure.median(concurrentTimes)
print(String(format: "%-48@ %.0f loads/s (median of 7 rounds of 1000 concurrent loads)", "1000 concurrent manager loads" as NSString, perSecond))
if sink == 42 { print("") }
