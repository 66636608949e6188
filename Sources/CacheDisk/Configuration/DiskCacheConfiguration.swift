import Foundation

extension DiskCache {
    /// Which date of an entry counts for its age.
    public enum ExpirationDate: String, Sendable, Hashable, CaseIterable {
        /// When the entry was last read or written (a read keeps an entry alive).
        case accessDate
        /// When the entry was last written (SDWebImage's default).
        case modificationDate
    }

    /// How a key becomes a file name.
    ///
    /// Both hash every UTF-8 byte of the key (SDWebImage's MD5 stops at the first NUL) and append
    /// the key's extension. File names never contain key text other than the sanitised extension.
    public enum FileNaming: String, Sendable, Hashable, CaseIterable {
        /// 64 hex digits of SHA-256 (the default): no two keys share a file, even when someone
        /// crafts keys on purpose (MD5 collisions with chosen prefixes are practical).
        case sha256
        /// 32 hex digits of MD5, as SDWebImage names its files, to read a directory SDWebImage wrote.
        case md5
    }

    /// Where and how much a ``DiskCache`` stores.
    public struct Configuration: Sendable {
        /// The cache directory; created (with its parents) when missing, recreated if deleted.
        public var directory: URL
        /// Directories searched, after ``directory``, when reading; never written, trimmed or cleared.
        public var additionalReadOnlyPaths: [URL]
        /// Maximum age in seconds. Negative: entries never expire. Zero: every entry is expired.
        /// Default: one week.
        public var maxAge: TimeInterval
        /// Maximum total size in bytes of the entry files (the small header included). Zero: unlimited.
        /// Default: 1 GiB.
        public var maxSize: Int
        /// Which date counts for an entry's age and for the "oldest first" order of trimming.
        public var expireBy: ExpirationDate
        /// How keys become file names.
        public var fileNaming: FileNaming
        /// Whether each store calls `fsync` before it counts as done (and before the rename of a
        /// replacement), so an entry survives a power loss (a process crash never needs it).
        /// Default false: stores stay fast.
        public var synchronizesWrites: Bool
        /// Encodes entries that hold an image but no bytes (see ``ImageEncoder``), e.g.
        /// `.registry(coders)`: PNG with alpha, else JPEG. Nil (the default): such a store throws
        /// `unsupported` and the entry already on disk stays.
        public var imageEncoder: ImageEncoder?
        /// The most entries the in-memory index may list (about 200 bytes each). A directory with
        /// more runs without an index: totals come from the ledger, and each trim streams the
        /// directory instead, so memory no longer grows with the number of entries. Zero: never
        /// keep an index (a program that writes millions of entries and reads few, like
        /// `imagekernel prefetch`). Default: 100,000 (about 20 MB).
        public var maxIndexedEntries: Int
        /// Whether a read of a key with an extension that misses looks for the name without it
        /// too: SDWebImage named files that way before it kept extensions, so a directory it (or
        /// an early version of this cache) wrote has such files. Default true. A cache only this
        /// version writes can turn it off: a miss then costs one `open` instead of two.
        /// Directories of ``additionalReadOnlyPaths`` are always searched under both names.
        public var readsNamesWithoutExtension = true
        /// Without an index, how many of the oldest entries one trim pass keeps as candidates
        /// (tests lower it to exercise passes that need more than one scan).
        package var trimCandidateLimit = 16_384
        /// Faults to inject into writes, for tests on machines that cannot mount a full file system.
        package var faults: FaultInjection?

        /// Creates a configuration with SDWebImage's defaults: one week, 1 GiB, modification date.
        public init(
            directory: URL,
            additionalReadOnlyPaths: [URL] = [],
            maxAge: TimeInterval = 7 * 24 * 60 * 60,
            maxSize: Int = 1 << 30,
            expireBy: ExpirationDate = .modificationDate,
            fileNaming: FileNaming = .sha256,
            synchronizesWrites: Bool = false,
            imageEncoder: ImageEncoder? = nil,
            maxIndexedEntries: Int = 100_000
        ) {
            self.directory = directory
            self.additionalReadOnlyPaths = additionalReadOnlyPaths
            self.maxAge = maxAge
            self.maxSize = maxSize
            self.expireBy = expireBy
            self.fileNaming = fileNaming
            self.synchronizesWrites = synchronizesWrites
            self.imageEncoder = imageEncoder
            self.maxIndexedEntries = maxIndexedEntries
        }

        /// `$XDG_CACHE_HOME/imagekernel`, else `~/.cache/imagekernel`.
        public static var defaultDirectory: URL {
            let environment = ProcessInfo.processInfo.environment
            if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
                return URL(fileURLWithPath: xdg).appendingPathComponent("imagekernel", isDirectory: true)
            }
            let home = environment["HOME"].map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser
            return home.appendingPathComponent(".cache/imagekernel", isDirectory: true)
        }
    }

    /// What a ``DiskCache/clean()`` removed.
    public struct CleanResult: Sendable, Hashable {
        /// Entry files removed (expired or trimmed).
        public var removedCount: Int
        /// Their total size in bytes.
        public var removedBytes: Int

        public init(removedCount: Int = 0, removedBytes: Int = 0) {
            self.removedCount = removedCount
            self.removedBytes = removedBytes
        }
    }
}

/// Write failures to inject (tests only): the next matching system call fails with `errno`.
package struct FaultInjection: Sendable {
    /// The errno that writing an entry's bytes fails with (for example `ENOSPC`), or nil.
    package var writeErrno: Int32?
    /// The errno that creating an entry's temporary file fails with (for example `EACCES`), or nil.
    package var createErrno: Int32?

    package init(writeErrno: Int32? = nil, createErrno: Int32? = nil) {
        self.writeErrno = writeErrno
        self.createErrno = createErrno
    }
}
