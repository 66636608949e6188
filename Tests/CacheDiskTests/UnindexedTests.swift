@testable import CacheDisk
import Foundation
import ImageKernel
import ImageKernelConformance
import Testing

/// The disk cache without an in-memory index (``DiskCache/Configuration/maxIndexedEntries`` 0, or
/// a directory with more entries than it): the same contract, with trims that stream the directory.
/// LimitsTests runs its limit tests in both modes; these cover what only this mode has.
@Suite struct UnindexedTests {
    let directory = TemporaryDirectory("unindexed")

    func cache(maxIndexed: Int = 0, _ configure: (inout DiskCache.Configuration) -> Void = { _ in }) -> DiskCache {
        var configuration = DiskCache.Configuration(directory: directory.url)
        configuration.maxIndexedEntries = maxIndexed
        configure(&configuration)
        return DiskCache(configuration: configuration)
    }

    static func fileSize(_ payload: Int) -> Int {
        EntryFormat.header(payloadLength: payload, validators: nil).count + payload
    }

    func name(_ cache: DiskCache, _ key: String) -> String {
        URL(fileURLWithPath: cache.path(forKey: key)).lastPathComponent
    }

    @Test func passesTheCacheSuiteAloneAndBehindAMemoryTier() async throws {
        let root = TemporaryDirectory("conformance")
        @Sendable func make() -> DiskCache {
            var configuration = DiskCache.Configuration(directory: root.child(UUID().uuidString))
            configuration.maxIndexedEntries = 0
            return DiskCache(configuration: configuration)
        }
        try await CacheConformance(makeCache: { make() }, tiers: .diskOnly).run()
        try await CacheConformance(
            makeCache: { TieredCache(memory: MemoryCache(), backing: make()) }, tiers: .memoryAndDisk
        ).run()
    }

    @Test func theIndexIsDroppedPastItsLimitAndCountsStayExact() throws {
        let cache = cache(maxIndexed: 10)
        cache.waitUntilIdle()
        for i in 0..<10 { try cache.storeData(bytes(100 + i), forKey: "k\(i)") }
        #expect(cache.state.withLock { $0.isIndexed && $0.index.count == 10 })
        for i in 10..<30 { try cache.storeData(bytes(100 + i), forKey: "k\(i)") }
        #expect(cache.state.withLock { !$0.isIndexed && $0.index.count == 0 })
        try cache.storeData(bytes(5_000), forKey: "k3")  // a replacement is counted by its difference
        try cache.removeData(forKey: "k4")
        cache.waitUntilIdle()
        #expect(cache.count() == 29)
        #expect(cache.totalSize() == Disk.totalSize(directory.url))
        #expect(cache.state.withLock { $0.estimatedTotal } == Disk.totalSize(directory.url))
        #expect(cache.data(forKey: "k3") == bytes(5_000) && cache.data(forKey: "k4") == nil)
    }

    @Test func aDirectoryLargerThanTheIndexLimitIsOpenedUnindexed() throws {
        let filler = cache(maxIndexed: 100_000) { $0.maxSize = 0 }
        for i in 0..<40 { try filler.storeData(bytes(1_000), forKey: "k\(i)") }
        filler.waitUntilIdle()
        let cache = cache(maxIndexed: 20) { $0.maxSize = Self.fileSize(1_000) * 30 }
        #expect(cache.count() == 40)
        #expect(cache.state.withLock { !$0.isIndexed })
        for i in 0..<40 { #expect(cache.data(forKey: "k\(i)") == bytes(1_000)) }
        cache.clean()
        #expect(Disk.totalSize(directory.url) <= Self.fileSize(1_000) * 15)
    }

    /// With room for only 4 candidates per scan, trimming 40 entries to half the limit takes
    /// several passes, and still removes strictly the oldest.
    @Test func trimsNeedingMoreCandidatesThanOnePassHoldsScanAgainAndRemoveTheOldest() throws {
        let fileSize = Self.fileSize(1_000)
        let filler = cache { $0.maxSize = 0; $0.maxAge = -1 }
        for i in 0..<40 { try filler.storeData(bytes(1_000), forKey: "k\(i)") }
        for i in 0..<40 { Disk.backdate(filler.path(forKey: "k\(i)"), secondsAgo: Double(1000 - i)) }
        let cache = cache { $0.maxSize = fileSize * 20; $0.maxAge = -1; $0.trimCandidateLimit = 4 }
        let result = cache.clean()
        #expect(result.removedCount == 30 && result.removedBytes == 30 * fileSize)
        #expect(Set(Disk.entryNames(directory.url)) == Set((30..<40).map { name(cache, "k\($0)") }))
        #expect(cache.statistics.scans >= 8)
        #expect(cache.totalSize() == 10 * fileSize)
    }

    /// A trim unlinks only what its scan saw: an entry rewritten since is kept.
    @Test func anEntryChangedSinceTheScanIsNotUnlinked() throws {
        let cache = cache { $0.maxSize = 0 }
        try cache.storeData(bytes(1_000), forKey: "k")
        Disk.backdate(cache.path(forKey: "k"), secondsAgo: 900)
        func scanned() -> DateOrderedIndex.Entry? {
            var found: DateOrderedIndex.Entry?
            DirectoryScanner.scan(directory.path, expireBy: .modificationDate) { found = $0 }
            return found
        }
        let seen = try #require(scanned())
        try cache.storeData(bytes(1_000, seed: 9), forKey: "k")  // same size, a new date
        var result = DiskCache.CleanResult()
        #expect(!cache.state.withLock { cache.unlinkIfUnchanged(seen, &$0, into: &result) })
        #expect(cache.data(forKey: "k") == bytes(1_000, seed: 9) && result.removedCount == 0)
        let current = try #require(scanned())
        #expect(cache.state.withLock { cache.unlinkIfUnchanged(current, &$0, into: &result) })
        #expect(cache.data(forKey: "k") == nil && result.removedCount == 1)
    }

    @Test func removeAllEmptiesALargeDirectoryWithoutAnIndex() throws {
        let cache = cache { $0.maxSize = 0 }
        for i in 0..<300 { try cache.storeData(bytes(100), forKey: "k\(i)") }
        try cache.removeAll()
        #expect(Disk.entryNames(directory.url).isEmpty)
        #expect(cache.count() == 0 && cache.totalSize() == 0)
        try cache.storeData(bytes(100), forKey: "again")
        #expect(cache.count() == 1)
    }

    /// Stores from several threads while streaming trims run: the directory stays within its
    /// limit, the accounting matches the directory, and each thread's last entry survives.
    @Test func concurrentStoresWhileTrimmingKeepTheLimitAndTheAccounting() async throws {
        let fileSize = Self.fileSize(2_000)
        let cache = cache { $0.maxSize = fileSize * 40; $0.trimCandidateLimit = 8 }
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<4 {
                group.addTask {
                    for i in 0..<100 { try? cache.storeData(bytes(2_000), forKey: "t\(t)-\(i)") }
                }
            }
        }
        cache.waitUntilIdle()
        #expect(Disk.totalSize(directory.url) <= fileSize * 40)
        #expect(cache.totalSize() == Disk.totalSize(directory.url))
        #expect(Disk.temporaryNames(directory.url).isEmpty)
    }
}
