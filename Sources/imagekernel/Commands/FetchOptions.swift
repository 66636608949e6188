import ArgumentParser
import Foundation
import CacheRedis
import ImageKernel

/// Options shared by `fetch` and `prefetch`.
struct LoadOptions: ParsableArguments {
    @Option(help: "Disk cache directory (default: $XDG_CACHE_HOME/imagekernel or ~/.cache/imagekernel).")
    var cacheDir: String?

    @Option(help: "A Redis tier shared with other processes, behind the disk cache: redis://[:password@]host[:port][/db], or a Redis Cluster: redis+cluster://host:port,host:port.")
    var sharedCache: String?

    @Option(help: "Milliseconds one shared-tier network wait may take before it counts as a miss (default 50).")
    var sharedCacheTimeout: Int = 50

    @Option(help: "Loads in flight at once.")
    var concurrency: Int = 6

    @Option(help: "Comma-separated image options, e.g. retryFailed,refreshCached,fromLoaderOnly.")
    var options: String = ""

    func imageOptions() throws -> ImageOptions {
        guard let parsed = ImageOptions(parsing: options) else {
            let known = ImageOptions.namedOptions.map(\.0).joined(separator: ", ")
            throw ValidationError("unknown option in '\(options)'; known: \(known)")
        }
        return parsed
    }

    func validate() throws {
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        _ = try imageOptions()
        guard sharedCacheTimeout >= 1 else { throw ValidationError("--shared-cache-timeout must be at least 1 (milliseconds)") }
        if let sharedCache {
            do {
                _ = try RedisCache.Configuration(url: sharedCache)
            } catch {
                throw ValidationError("--shared-cache: \(error.message)")
            }
        }
    }

    /// Memory, the disk cache, and the shared tier when one is named. `indexed` false: the disk
    /// cache keeps no in-memory index (a prefetch writes entries it never reads back).
    func cache(indexed: Bool = true) throws -> any ImageCache {
        try Plugins.cache(
            directory: cacheDir, sharedCache: sharedCache, sharedCacheTimeout: .milliseconds(sharedCacheTimeout),
            indexed: indexed)
    }
}
