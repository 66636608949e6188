import Foundation
import ImageKernel
import CacheDisk
import CoderPNG
import LoaderFile

/// The parts the command-line tool links, registered in one place.
enum Plugins {
    static func coders() -> CoderRegistry {
        CoderRegistry([PNGCoder()])
    }

    static func loaders() -> LoaderRegistry {
        LoaderRegistry([FileLoader()])
    }

    /// The disk cache in `directory` (default `$XDG_CACHE_HOME/imagekernel`, else `~/.cache/imagekernel`).
    static func diskCache(directory: String?, maxAge: Double? = nil, maxSize: Int? = nil) -> DiskCache {
        var configuration = DiskCache.Configuration(
            directory: directory.map { URL(fileURLWithPath: $0) } ?? DiskCache.Configuration.defaultDirectory)
        if let maxAge { configuration.maxAge = maxAge }
        if let maxSize { configuration.maxSize = maxSize }
        return DiskCache(configuration: configuration)
    }

    /// The cache for `fetch`/`prefetch`: memory in front of the disk cache.
    static func cache(directory: String?) throws -> any ImageCache {
        TieredCache(memory: MemoryCache(), backing: diskCache(directory: directory))
    }

    /// Lets background cache work (index, trimming) finish before the process exits.
    static func finish(_ manager: ImageManager) {
        ((manager.cache as? TieredCache)?.backing as? DiskCache)?.waitUntilIdle()
    }

    static func manager(cacheDirectory: String? = nil) throws -> ImageManager {
        ImageManager(configuration: .init(cache: try cache(directory: cacheDirectory), loaders: loaders(), coders: coders()))
    }
}
