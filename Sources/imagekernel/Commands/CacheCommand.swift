import ArgumentParser
import CacheDisk
import Foundation
import ImageKernel

/// `imagekernel cache stats|clean|clear --cache-dir DIR`.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect or trim the disk cache.",
        subcommands: [Stats.self, Clean.self, Clear.self]
    )

    struct Location: ParsableArguments {
        @Option(help: "Disk cache directory (default: $XDG_CACHE_HOME/imagekernel or ~/.cache/imagekernel).")
        var cacheDir: String?

        func open() -> DiskCache { Plugins.diskCache(directory: cacheDir) }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print `directory entries bytes`.")
        @OptionGroup var location: Location
        func run() async throws {
            let cache = location.open()
            print(["directory", "entries", "bytes"].joined(separator: "\t"))
            print([cache.configuration.directory.path, "\(cache.count())", "\(cache.totalSize())"].joined(separator: "\t"))
        }
    }

    struct Clean: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove expired entries, then the oldest until the size is at most half the limit; print `removed_entries removed_bytes entries bytes`.")
        @OptionGroup var location: Location
        @Option(help: "Maximum age in seconds (default one week; negative: never expire).") var maxAge: Double?
        @Option(help: "Maximum size in bytes (default 1 GiB; 0: unlimited).") var maxSize: Int?
        func run() async throws {
            let cache = Plugins.diskCache(directory: location.cacheDir, maxAge: maxAge, maxSize: maxSize)
            let result = cache.clean()
            print(["removed_entries", "removed_bytes", "entries", "bytes"].joined(separator: "\t"))
            print(["\(result.removedCount)", "\(result.removedBytes)", "\(cache.count())", "\(cache.totalSize())"].joined(separator: "\t"))
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove every entry; print `removed_entries removed_bytes`.")
        @OptionGroup var location: Location
        func run() async throws {
            let cache = location.open()
            let (count, bytes) = (cache.count(), cache.totalSize())
            do {
                try cache.removeAll()
            } catch {
                printError(Sources.errorLine(cache.configuration.directory.path, error))
                throw ExitCode(1)
            }
            print(["removed_entries", "removed_bytes"].joined(separator: "\t"))
            print(["\(count)", "\(bytes)"].joined(separator: "\t"))
        }
    }
}
