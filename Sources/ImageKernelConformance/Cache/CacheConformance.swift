import Foundation
import ImageKernel

/// Checks an ``ImageCache`` against the implementation requirements of the protocol.
///
/// ```swift
/// try await CacheConformance(makeCache: { MemoryCache() }, tiers: .memoryOnly).run()
/// try await CacheConformance(makeCache: { TieredCache(backing: MemoryCache()) }, tiers: .memoryAndDisk).run()
/// // A persistent cache: give every call its own empty directory.
/// try await CacheConformance(makeCache: { try MyDiskCache(directory: freshTemporaryDirectory()) }, tiers: .diskOnly).run()
/// ```
///
/// Every case asks ``makeCache`` for a fresh, empty cache, so cases never see each other's
/// entries; a factory of a persistent cache should give each call its own directory. You say
/// which tiers the cache has; ``ImageCacheType/memory`` operations then go to the memory tier
/// and ``ImageCacheType/disk`` ones to the persistent tier. Entries are small (a 4×4 RGBA8
/// image, 300 bytes of data and an ETag), and each case stores at most a few dozen.
///
/// What a hit must hold: the image or the data, the image when it came from memory and the data
/// when it came from disk, and every field it holds equal to what was stored under that key.
///
/// ## Cases
/// - ``Case/storeThenQueryHits``: an entry stored with `.all` is found with `.all` (from memory
///   when the cache has a memory tier, else from disk) and with each tier's own type.
/// - ``Case/missReturnsNil``: a key never stored misses (returns nil, does not throw) for every
///   type, in an empty cache and in one holding other keys.
/// - ``Case/storeReplacesEntry``: storing under a used key replaces the entry in every tier.
/// - ``Case/removeDeletesOnlyThatKey``: after `remove(.all)` the key misses and `contains`
///   answers `.none`, other keys still hit, and removing a missing key does not throw.
/// - ``Case/clearEmptiesEveryKey``: after `clear(.all)` every key misses; the cache still stores.
/// - ``Case/containsReportsTier``: `contains` answers the first tier that holds the key
///   (memory before disk), only among the tiers asked for, and `.none` for a missing key.
/// - ``Case/cacheTypesKeepTiersApart``: storing, removing and clearing with one tier's type
///   leaves the other tier as it was; a tier the cache lacks stores nothing and answers nothing.
/// - ``Case/noneTypeTouchesNothing``: `.none` stores nothing, finds nothing, removes nothing,
///   clears nothing, and `contains(.none)` is `.none`.
/// - ``Case/anyStringIsAKey``: the empty string, path-like keys (`/`, `..`, `../../etc/passwd`,
///   `a/b` beside `a_b`), percent escapes, control characters, non-ASCII and a 2000-character key
///   each hold their own entry; removing one leaves the others.
/// - ``Case/concurrentWritersAndReaders``: ``concurrency`` tasks × ``operationsPerTask`` mixed
///   stores, queries and `contains` calls on 16 shared keys never throw; every query misses or
///   returns a whole entry stored under that key (never a torn or foreign one); afterwards every
///   key hits.
/// - ``Case/cancelledQueryThrows``: a query from an already cancelled task, for a key the cache
///   holds, throws a cancellation error (``ImageKernelError`` with code `cancelled`; the
///   protocol's typed throws rule out `CancellationError`) within ``timeout`` for `.all` and for
///   each tier's type instead of
///   returning (a nil would read as a miss and start a download); the next query from a live
///   task hits.
public struct CacheConformance: ConformanceSuite {
    /// The tiers a cache has.
    public struct Tiers: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// A memory tier, answering ``ImageCacheType/memory``.
        public static let memory = Tiers(rawValue: 1 << 0)
        /// A persistent tier, answering ``ImageCacheType/disk``.
        public static let disk = Tiers(rawValue: 1 << 1)

        /// Only a memory tier (``MemoryCache``).
        public static let memoryOnly: Tiers = [.memory]
        /// Only a persistent tier (a disk cache on its own).
        public static let diskOnly: Tiers = [.disk]
        /// Memory in front of a persistent tier (``TieredCache``).
        public static let memoryAndDisk: Tiers = [.memory, .disk]
    }

    /// The cases of the cache suite; see the type's documentation for what each proves.
    public enum Case: String, CaseIterable, Sendable {
        /// A stored entry is found whole, from the right tier.
        case storeThenQueryHits
        /// A key never stored misses without throwing.
        case missReturnsNil
        /// A second store under a key replaces the first.
        case storeReplacesEntry
        /// `remove` deletes the key and nothing else.
        case removeDeletesOnlyThatKey
        /// `clear` deletes every key and leaves the cache usable.
        case clearEmptiesEveryKey
        /// `contains` names the first tier holding the key.
        case containsReportsTier
        /// Operations on one tier leave the other alone.
        case cacheTypesKeepTiersApart
        /// `.none` stores, finds, removes and clears nothing.
        case noneTypeTouchesNothing
        /// Empty, path-like, long and odd keys each hold their own entry.
        case anyStringIsAKey
        /// Concurrent stores and queries never give a torn or foreign entry.
        case concurrentWritersAndReaders
        /// A query from a cancelled task throws a cancellation error.
        case cancelledQueryThrows
    }

    public static let suiteName = "CacheConformance"

    /// Makes a fresh, empty cache; called once per case.
    public let makeCache: @Sendable () async throws -> any ImageCache
    /// The tiers the caches have.
    public let tiers: Tiers
    /// How many tasks the concurrency case uses.
    public let concurrency: Int
    /// How many operations each of those tasks performs.
    public let operationsPerTask: Int
    /// The time limit of one case; a guard against hangs and a bound on "promptly".
    public let timeout: Duration

    /// Creates the suite.
    /// - Parameters:
    ///   - makeCache: Makes a fresh, empty cache; called once per case.
    ///   - tiers: The tiers the caches have (at least one).
    ///   - concurrency: Tasks in the concurrency case (default 8).
    ///   - operationsPerTask: Operations per task in the concurrency case (default 100).
    ///   - timeout: Time limit of one case (default 60 s).
    public init(
        makeCache: @escaping @Sendable () async throws -> any ImageCache, tiers: Tiers, concurrency: Int = 8,
        operationsPerTask: Int = 100, timeout: Duration = .seconds(60)
    ) {
        self.makeCache = makeCache
        self.tiers = tiers
        self.concurrency = max(2, concurrency)
        self.operationsPerTask = max(1, operationsPerTask)
        self.timeout = timeout
    }

    /// Runs one case; throws a ``ConformanceFailure`` naming the case and the input that failed.
    public func run(case testCase: Case) async throws(ConformanceFailure) {
        let context = CaseContext(Self.self, testCase)
        try await context.runAsync(timeout) { () async throws(ConformanceFailure) in
            guard !tiers.isEmpty else { throw context.failure("tiers", "the cache suite needs at least one tier") }
            let probe: CacheProbe
            do { probe = CacheProbe(cache: try await makeCache(), context: context) } catch {
                throw context.failure("makeCache()", "the factory threw", underlying: SendableErrorBox(error))
            }
            switch testCase {
            case .storeThenQueryHits: try await checkStoreThenQueryHits(probe)
            case .missReturnsNil: try await checkMissReturnsNil(probe)
            case .storeReplacesEntry: try await checkStoreReplacesEntry(probe)
            case .removeDeletesOnlyThatKey: try await checkRemoveDeletesOnlyThatKey(probe)
            case .clearEmptiesEveryKey: try await checkClearEmptiesEveryKey(probe)
            case .containsReportsTier: try await checkContainsReportsTier(probe)
            case .cacheTypesKeepTiersApart: try await checkCacheTypesKeepTiersApart(probe)
            case .noneTypeTouchesNothing: try await checkNoneTypeTouchesNothing(probe)
            case .anyStringIsAKey: try await checkAnyStringIsAKey(probe)
            case .concurrentWritersAndReaders: try await checkConcurrentWritersAndReaders(probe)
            case .cancelledQueryThrows: try await checkCancelledQueryThrows(probe)
            }
        }
    }

    /// The tier an `.all` hit or `contains(.all)` must name: memory when there is one.
    var firstTier: ImageCacheType { tiers.contains(.memory) ? .memory : .disk }

    /// The single-tier types of the tiers the cache has.
    var tierTypes: [ImageCacheType] {
        (tiers.contains(.memory) ? [ImageCacheType.memory] : []) + (tiers.contains(.disk) ? [.disk] : [])
    }

    /// The single-tier types of the tiers the cache lacks.
    var missingTierTypes: [ImageCacheType] {
        (tiers.contains(.memory) ? [] : [ImageCacheType.memory]) + (tiers.contains(.disk) ? [] : [.disk])
    }
}
