@testable import CacheDisk
import Foundation
import Testing

@Suite struct IndexTests {
    let directory = TemporaryDirectory()

    @Test func dateOrderedIndexKeepsTotalsAndOrder() {
        var index = DateOrderedIndex([
            .init(name: "b", size: 20, date: 2), .init(name: "a", size: 10, date: 1), .init(name: "c", size: 30, date: 3),
        ])
        #expect(index.totalSize == 60 && index.count == 3)
        #expect(index.oldest?.name == "a" && index.newest?.name == "c")
        index.touch("a", date: 4)
        #expect(index.oldest?.name == "b" && index.newest?.name == "a")
        #expect(index.upsert(.init(name: "b", size: 5, date: 5)) == 20)
        #expect(index.totalSize == 45 && index.oldest?.name == "c")
        #expect(index.oldestEntries(limit: 10) { $0.date < 5 }.map(\.name) == ["c", "a"])
        index.remove("c")
        index.remove("missing")
        #expect(index.entries.map(\.name) == ["b", "a"] && index.totalSize == 15)
    }

    @Test func indexIsRebuiltWhenItDisagreesWithTheDirectory() throws {
        let cache = DiskCache(configuration: .init(directory: directory.url))
        for i in 0..<10 { try cache.storeData(bytes(1_000), forKey: "k\(i)") }
        #expect(cache.count() == 10)
        // Changed behind the cache's back: three files deleted, two foreign files added.
        for i in 0..<3 { try FileManager.default.removeItem(atPath: cache.path(forKey: "k\(i)")) }
        try bytes(500).write(to: directory.url.appendingPathComponent("foreign-1"))
        try bytes(700).write(to: directory.url.appendingPathComponent("foreign-2"))
        // A read finds a listed file missing: the index disagrees and is rebuilt before it is used.
        #expect(cache.data(forKey: "k0") == nil)
        #expect(cache.count() == 9)
        #expect(cache.totalSize() == Disk.totalSize(directory.url))
    }

    @Test func anotherWriterOnTheSameDirectoryIsNoticedThroughTheLedger() throws {
        let first = DiskCache(configuration: .init(directory: directory.url))
        let second = DiskCache(configuration: .init(directory: directory.url))
        try first.storeData(bytes(1_000), forKey: "mine")
        first.waitUntilIdle()
        second.waitUntilIdle()
        for i in 0..<300 { try second.storeData(bytes(1_000), forKey: "theirs-\(i)") }
        #expect(first.count() == 301)
        #expect(first.totalSize() == Disk.totalSize(directory.url))
        #expect(first.statistics.scans >= 2)
    }

    @Test func twoCachesOnOneDirectoryHoldTheSharedLimit() throws {
        let fileSize = EntryFormat.header(payloadLength: 2_000, validators: nil).count + 2_000
        let limit = fileSize * 40
        let first = DiskCache(configuration: .init(directory: directory.url, maxSize: limit))
        let second = DiskCache(configuration: .init(directory: directory.url, maxSize: limit))
        for i in 0..<200 {
            try first.storeData(bytes(2_000), forKey: "a\(i)")
            try second.storeData(bytes(2_000), forKey: "b\(i)")
        }
        first.waitUntilIdle()
        second.waitUntilIdle()
        #expect(Disk.totalSize(directory.url) <= limit)
    }

    @Test func orphanedTemporaryFilesAreRemovedByCleanOnceOld() throws {
        let cache = DiskCache(configuration: .init(directory: directory.url))
        let old = directory.url.appendingPathComponent(EntryWriter.temporaryPrefix + "deadbeef")
        let fresh = directory.url.appendingPathComponent(EntryWriter.temporaryPrefix + "cafe")
        try bytes(100).write(to: old)
        try bytes(100).write(to: fresh)
        Disk.backdate(old.path, secondsAgo: 2 * 3600)
        cache.clean()
        #expect(Disk.temporaryNames(directory.url) == [fresh.lastPathComponent])
        #expect(cache.count() == 0)
    }
}
