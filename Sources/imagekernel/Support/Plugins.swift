import Foundation
import ImageKernel
import LoaderFile

/// The parts the command-line tool links, registered in one place.
enum Plugins {
    static func coders() -> CoderRegistry {
        CoderRegistry([])
    }

    static func loaders() -> LoaderRegistry {
        LoaderRegistry([FileLoader()])
    }

    /// The cache for `fetch`/`prefetch`: memory only until a disk cache is linked.
    static func cache(directory: String?) throws -> any ImageCache {
        MemoryCache()
    }

    static func manager(cacheDirectory: String? = nil) throws -> ImageManager {
        ImageManager(configuration: .init(cache: try cache(directory: cacheDirectory), loaders: loaders(), coders: coders()))
    }
}
