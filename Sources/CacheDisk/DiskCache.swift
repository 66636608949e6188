import Dispatch
import Foundation
import ImageKernel

/// An ``ImageCache`` on the file system: the bytes of each entry in one file named by a hash of
/// its key, written atomically, within an age and a size limit.
///
/// - **Files.** `<hex digest of the key>.<extension of the key's URL path>` (see
///   ``FileNaming``); reads fall back to the name without extension. Each file is a small header
///   with the validators (ETag, Last-Modified), then the bytes unchanged.
/// - **Atomic.** A store writes a temporary file in the same directory and renames it over the
///   entry, so a reader sees the old entry, the new one or none, never part of one, even when
///   the writing process is killed.
/// - **Limits hold while the program runs.** An index of sizes and dates is built once by a scan
///   in the background and then updated by every store, remove and read; a store that takes the
///   directory over ``Configuration/maxSize`` (or finds the oldest entry expired) starts a
///   background trim: expired entries first, then the oldest until the total is at most half the
///   limit. A store never scans the directory. ``clean()`` does the same on demand after a full
///   rescan.
/// - **Memory does not grow without bound.** The index costs about 200 bytes per entry and holds
///   at most ``Configuration/maxIndexedEntries``. Past that the cache runs without one: the total
///   size comes from the ledger, and each trim streams the directory, keeping only the oldest
///   16,384 entries it meets as candidates, so memory stays the same for a million entries or
///   ten. ``count()`` and ``totalSize()`` then scan.
/// - **Several processes** may share a directory: they share the total size through a small
///   ledger file, an index that disagrees with the directory is rebuilt before trimming, and a
///   file that vanishes under a reader is a miss.
/// - **Tiers.** It is the disk tier: it answers ``ImageCacheType/disk`` and ``ImageCacheType/all``
///   and ignores ``ImageCacheType/memory``. Put it behind a `TieredCache` for a memory tier.
/// - **Errors.** A full disk, a read-only or unwritable directory throw ``ImageKernelError`` with
///   stage `.cache`, plugin `"CacheDisk"` and code `diskFull`, `permissionDenied` or `ioError`;
///   other entries are untouched. Reads never throw: anything unreadable is a miss.
///
/// - **Image-only entries.** The disk tier keeps bytes. An entry stored with an image and no bytes
///   is encoded with ``Configuration/imageEncoder`` (e.g. `.registry(coders)`: PNG with alpha,
///   else JPEG); without an encoder the store throws `unsupported` and the old entry stays.
///
/// The synchronous methods block on file I/O and are safe from any thread; the `ImageCache`
/// methods call the short ones directly (a store or read is a few short system calls). The
/// methods that may wait for a directory scan or a trim — ``count()``, ``totalSize()``,
/// ``clean()``, ``waitUntilIdle()`` — block their thread; from async code use their async forms
/// ``countAsync()``, ``totalSizeAsync()``, ``cleanAsync()`` and ``waitUntilIdleAsync()``, which
/// run the work on the cache's own maintenance queue and suspend the task instead of holding a
/// thread of the cooperative pool. Create one `DiskCache` per directory and share it: each
/// instance scans the directory once when it starts. A short-lived program should call
/// ``waitUntilIdle()`` before it exits so that a trim in progress finishes and its size changes
/// reach the other processes.
public final class DiskCache: ImageCache, Sendable {
    static let pluginName = "CacheDisk"

    public var name: String { Self.pluginName }

    /// The configuration the cache was created with.
    public let configuration: Configuration

    let naming: EntryNaming
    /// The cache directory's path, without a trailing slash.
    let directoryPath: String
    let readOnlyPaths: [String]
    /// Guarded by a pthread mutex (`Locked`), which ThreadSanitizer understands.
    let state: Locked<CacheState>
    /// Builds the index, trims and cleans, one job at a time, off the callers' threads.
    let maintenance = DispatchQueue(label: "CacheDisk.maintenance")

    /// Creates the cache and its directory, and starts building the index in the background.
    /// A directory that cannot be created is not an error here: stores report it.
    public init(configuration: Configuration) {
        self.configuration = configuration
        naming = EntryNaming(naming: configuration.fileNaming)
        directoryPath = Self.normalized(configuration.directory)
        readOnlyPaths = configuration.additionalReadOnlyPaths.map(Self.normalized)
        _ = POSIX.makeDirectories(directoryPath)
        var initial = CacheState(maxIndexed: configuration.maxIndexedEntries)
        initial.ledger = Ledger(directory: directoryPath)
        state = Locked(initial)
        maintenance.async { self.rescan() }
    }

    deinit {
        state.withLock { $0.flush() }
    }

    /// Creates a cache in `directory` with the default limits.
    public convenience init(directory: URL) {
        self.init(configuration: Configuration(directory: directory))
    }

    private static func normalized(_ url: URL) -> String {
        var path = url.standardizedFileURL.path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path
    }

    // MARK: Synchronous API

    /// The entry for `key`: its bytes and validators, or nil.
    public func entry(forKey key: String) -> CacheEntry? {
        read(key: key).map { CacheEntry(data: $0.data, validators: $0.validators) }
    }

    /// The bytes stored for `key`, or nil.
    public func data(forKey key: String) -> Data? { read(key: key)?.data }

    /// Whether an unexpired entry file for `key` exists here or in a read-only path.
    public func containsData(forKey key: String) -> Bool { locate(key: key) != nil }

    /// The path the entry for `key` is written to (it may not exist).
    public func path(forKey key: String) -> String {
        naming.entryPath(forKey: key, in: directoryPath).path
    }

    /// The total size in bytes of the entry files in the cache directory. Blocks until the index
    /// is fresh (a scan may be needed); from async code use ``totalSizeAsync()``.
    public func totalSize() -> Int {
        maintenance.sync { freshIndexTotalSize() }
    }

    /// The number of entry files in the cache directory. Blocks until the index is fresh (a scan
    /// may be needed); from async code use ``countAsync()``.
    public func count() -> Int {
        maintenance.sync { freshIndexCount() }
    }

    /// Rescans the directory, removes expired entries, then the oldest until the total is at most
    /// half of ``Configuration/maxSize`` if it is over it, and temporary files left by crashed
    /// stores more than an hour ago. Blocks for the whole pass; from async code use ``cleanAsync()``.
    @discardableResult
    public func clean() -> CleanResult {
        maintenance.sync { maintain(full: true).result }
    }

    /// Removes every entry file of the cache directory (read-only paths are untouched).
    /// - Throws: ``ImageKernelError`` when a file cannot be removed; the others are removed.
    public func removeAll() throws(ImageKernelError) {
        try maintenance.sync { sweepResult() }.get()
    }

    /// Blocks until the index is built and every trim started so far has finished; publishes
    /// this process's pending size changes to the other processes sharing the directory and trims
    /// now if the directory is over a limit. Call it before a short-lived program exits; from
    /// async code use ``waitUntilIdleAsync()``.
    public func waitUntilIdle() {
        maintenance.sync { settle() }
    }

    /// The entry count, from the index after rescanning a stale or unbuilt one, or without an
    /// index from a fresh scan. On `maintenance` only.
    func freshIndexCount() -> Int { freshCounts().count }

    /// The total size, like ``freshIndexCount()``. On `maintenance` only.
    func freshIndexTotalSize() -> Int { freshCounts().totalSize }

    private func freshCounts() -> (count: Int, totalSize: Int) {
        while true {
            let needsScan = state.withLock { state -> Bool in
                state.flush()
                return state.isStale || !state.isBuilt || !state.isIndexed
            }
            let summary = needsScan ? rescan() : nil
            let counts = state.withLock { state -> (count: Int, totalSize: Int)? in
                if state.isIndexed { return (state.index.count, state.index.totalSize) }
                return summary.map { ($0.count, $0.totalSize) }
            }
            // nil: a store dropped the index between the check and now; scan.
            if let counts { return counts }
        }
    }
}
