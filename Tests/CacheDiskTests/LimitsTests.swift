@testable import CacheDisk
import Foundation
import ImageKernel
import Testing

@Suite struct LimitsTests {
    let directory = TemporaryDirectory()

    /// With the default index, and without one (trims stream the directory).
    static let indexLimits = [100_000, 0]

    func cache(
        indexed maxIndexed: Int = 100_000, _ configure: (inout DiskCache.Configuration) -> Void = { _ in }
    ) -> DiskCache {
        var configuration = DiskCache.Configuration(directory: directory.url)
        configuration.maxIndexedEntries = maxIndexed
        configure(&configuration)
        return DiskCache(configuration: configuration)
    }

    @Test(arguments: Self.indexLimits) func maxAgeOfOneSecondLeavesNoFileAfterClean(maxIndexed: Int) throws {
        let cache = cache(indexed: maxIndexed) { $0.maxAge = 1 }
        for i in 0..<3 { try cache.storeData(bytes(100), forKey: "k\(i)") }
        cache.waitUntilIdle()
        #expect(Disk.entryNames(directory.url).count == 3)
        Thread.sleep(forTimeInterval: 1.2)
        let result = cache.clean()
        #expect(Disk.entryNames(directory.url).isEmpty)
        #expect(result.removedCount == 3)
        #expect(cache.count() == 0)
    }

    @Test(arguments: Self.indexLimits) func maxAgeZeroExpiresEverything(maxIndexed: Int) throws {
        let filler = cache(indexed: maxIndexed) { $0.maxAge = -1 }
        for i in 0..<3 { try filler.storeData(bytes(100), forKey: "k\(i)") }
        let cache = cache(indexed: maxIndexed) { $0.maxAge = 0 }
        #expect(cache.data(forKey: "k0") == nil)
        cache.clean()
        #expect(Disk.entryNames(directory.url).isEmpty)
    }

    @Test(arguments: Self.indexLimits) func negativeMaxAgeNeverExpires(maxIndexed: Int) throws {
        let cache = cache(indexed: maxIndexed) { $0.maxAge = -1 }
        try cache.storeData(bytes(100), forKey: "ancient")
        Disk.backdate(cache.path(forKey: "ancient"), secondsAgo: 20 * 365 * 86_400)
        #expect(cache.clean().removedCount == 0)
        #expect(cache.data(forKey: "ancient") == bytes(100))
    }

    @Test(arguments: Self.indexLimits) func zeroMaxSizeIsUnlimited(maxIndexed: Int) throws {
        let cache = cache(indexed: maxIndexed) { $0.maxSize = 0 }
        for i in 0..<50 { try cache.storeData(bytes(10_000), forKey: "k\(i)") }
        cache.waitUntilIdle()
        #expect(cache.clean().removedCount == 0)
        #expect(cache.count() == 50)
    }

    /// Expired entries go first, then the oldest until the total is at most half the limit.
    @Test(arguments: DiskCache.ExpirationDate.allCases, Self.indexLimits)
    func cleanTrimsExpiredThenOldestToHalfTheLimit(expireBy: DiskCache.ExpirationDate, maxIndexed: Int) throws {
        let filler = cache(indexed: maxIndexed) { $0.maxSize = 0; $0.maxAge = -1 }
        var ages: [String: Double] = [:]
        for i in 0..<20 {
            let key = "k\(i)"
            try filler.storeData(bytes(10_000), forKey: key)
            ages[key] = Double(1000 - i * 40)  // k0 is 1000 s old, k19 is 240 s old
        }
        filler.waitUntilIdle()
        for (key, age) in ages { Disk.backdate(filler.path(forKey: key), secondsAgo: age) }
        let fileSize = Disk.totalSize(directory.url) / 20
        // k0…k5 (1000…800 s) are expired; the other 14 files exceed the limit of 12 files.
        let cache = cache(indexed: maxIndexed) { $0.maxAge = 800; $0.maxSize = fileSize * 12; $0.expireBy = expireBy }
        let result = cache.clean()
        let kept = Set(Disk.entryNames(directory.url))
        let expected = Set((14..<20).map { URL(fileURLWithPath: cache.path(forKey: "k\($0)")).lastPathComponent })
        #expect(kept == expected)  // 6 files = half the limit
        #expect(result.removedCount == 14)
        #expect(result.removedBytes == 14 * fileSize)
        #expect(cache.totalSize() <= fileSize * 6)
    }

    @Test(arguments: Self.indexLimits) func readsKeepEntriesAliveUnderAccessDateExpiry(maxIndexed: Int) throws {
        let filler = cache(indexed: maxIndexed) { $0.maxAge = -1 }
        try filler.storeData(bytes(10), forKey: "read")
        try filler.storeData(bytes(10), forKey: "unread")
        for key in ["read", "unread"] { Disk.backdate(filler.path(forKey: key), secondsAgo: 900) }
        let byAccess = cache(indexed: maxIndexed) { $0.maxAge = 1000; $0.expireBy = .accessDate }
        #expect(byAccess.data(forKey: "read") == bytes(10))
        let stricter = cache(indexed: maxIndexed) { $0.maxAge = 500; $0.expireBy = .accessDate }
        stricter.clean()
        #expect(stricter.data(forKey: "read") == bytes(10))
        #expect(stricter.data(forKey: "unread") == nil)
        let byModification = cache(indexed: maxIndexed) { $0.maxAge = 500; $0.expireBy = .modificationDate }
        byModification.clean()
        #expect(Disk.entryNames(directory.url).isEmpty)
    }

    @Test(arguments: Self.indexLimits) func aStoreOverTheLimitTrimsOldestFirstToHalfWhileRunning(maxIndexed: Int) throws {
        let fileSize = EntryFormat.header(payloadLength: 10_000, validators: nil).count + 10_000
        let cache = cache(indexed: maxIndexed) { $0.maxSize = fileSize * 20 }
        for i in 0..<60 {
            // Without an index the order is the files' dates, which the file system keeps in
            // steps of a few milliseconds.
            if maxIndexed == 0 { Thread.sleep(forTimeInterval: 0.005) }
            try cache.storeData(bytes(10_000), forKey: "k\(i)")
            cache.waitUntilIdle()
            #expect(Disk.totalSize(directory.url) <= fileSize * 20)
            #expect(cache.data(forKey: "k\(i)") != nil)  // the newest entry survives its own trim
        }
        // The 21st store crossed the limit and trimmed to 10 files; then 11 more stores … and so on.
        let survivors = Set(Disk.entryNames(directory.url))
        let newest = (0..<60).map { URL(fileURLWithPath: cache.path(forKey: "k\($0)")).lastPathComponent }
        #expect(survivors == Set(newest.suffix(survivors.count)))
        #expect(survivors.count >= 10 && survivors.count <= 20)
        #expect(cache.totalSize() == Disk.totalSize(directory.url))
    }

    @Test func storesNeverScanTheDirectoryAfterTheFirstBuild() throws {
        let fileSize = EntryFormat.header(payloadLength: 1_000, validators: nil).count + 1_000
        let cache = cache { $0.maxSize = fileSize * 50 }
        for i in 0..<500 { try cache.storeData(bytes(1_000), forKey: "k\(i)") }
        cache.waitUntilIdle()
        #expect(cache.statistics.scans == 1)
        #expect(cache.statistics.trims >= 1)
        #expect(Disk.totalSize(directory.url) <= fileSize * 50)
    }

    @Test(arguments: Self.indexLimits) func anEntryLargerThanTheLimitIsRefused(maxIndexed: Int) throws {
        let cache = cache(indexed: maxIndexed) { $0.maxSize = 1_000 }
        let error = #expect(throws: ImageKernelError.self) { try cache.storeData(bytes(2_000), forKey: "big") }
        #expect(error?.code == .tooLarge && error?.stage == .cache && error?.plugin == "CacheDisk")
        #expect(Disk.entryNames(directory.url).isEmpty)
    }
}
