@testable import CacheDisk
import Foundation
import ImageKernelTestSupport
import Glibc
import ImageKernel
import Synchronization
import Testing

@Suite struct StoreAndQueryTests {
    let directory = TemporaryDirectory()

    func cache(_ configure: (inout DiskCache.Configuration) -> Void = { _ in }) -> DiskCache {
        var configuration = DiskCache.Configuration(directory: directory.url)
        configure(&configuration)
        return DiskCache(configuration: configuration)
    }

    @Test func realImageBytesAndValidatorsRoundTripThroughTheImageCacheAPI() async throws {
        let cache = cache()
        let jpeg = try TestData.data("jpeg/pillow/pil_sample_rgb.jpg")
        let validators = CacheValidators(etag: "\"abc\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")
        try await cache.store(CacheEntry(data: jpeg, validators: validators), forKey: "https://x.test/a.jpg", type: .disk)
        let hit = try #require(try await cache.query(key: "https://x.test/a.jpg", type: .all))
        #expect(hit.source == .disk)
        #expect(hit.entry.data == jpeg)
        #expect(hit.entry.validators == validators)
        #expect(hit.entry.image == nil)
        #expect(await cache.contains(key: "https://x.test/a.jpg", type: .disk) == .disk)
        // The file is the header plus the bytes unchanged.
        let file = try Data(contentsOf: URL(fileURLWithPath: cache.path(forKey: "https://x.test/a.jpg")))
        #expect(file.suffix(jpeg.count) == jpeg)
    }

    @Test func memoryTypeIsIgnored() async throws {
        let cache = cache()
        try await cache.store(CacheEntry(data: Data([1])), forKey: "k", type: .memory)
        #expect(Disk.entryNames(directory.url).isEmpty)
        try await cache.store(CacheEntry(data: Data([2])), forKey: "k", type: .all)
        #expect(try await cache.query(key: "k", type: .memory) == nil)
        #expect(await cache.contains(key: "k", type: .memory) == ImageCacheType.none)
        try await cache.remove(key: "k", type: .memory)
        try await cache.clear(type: .memory)
        #expect(try await cache.query(key: "k", type: .disk)?.entry.data == Data([2]))
        try await cache.store(CacheEntry(data: Data([3])), forKey: "k", type: ImageCacheType.none)
        #expect(cache.data(forKey: "k") == Data([2]))
    }

    @Test func initialSizeIsZeroAndCountFollowsStores() throws {
        let cache = cache()
        #expect(cache.totalSize() == 0)
        #expect(cache.count() == 0)
        for i in 0..<3 { try cache.storeData(bytes(1000 * (i + 1)), forKey: "k\(i)") }
        #expect(cache.count() == 3)
        #expect(cache.totalSize() == Disk.totalSize(directory.url))
        try cache.storeData(bytes(10), forKey: "k0")
        #expect(cache.count() == 3)
        #expect(cache.totalSize() == Disk.totalSize(directory.url))
        try cache.removeData(forKey: "k1")
        #expect(cache.count() == 2)
        #expect(cache.totalSize() == Disk.totalSize(directory.url))
    }

    @Test func removeAllEmptiesTheDirectoryButNotReadOnlyPaths() throws {
        let readOnly = TemporaryDirectory("readonly")
        let cache = cache { $0.additionalReadOnlyPaths = [readOnly.url] }
        let name = URL(fileURLWithPath: cache.path(forKey: "bundled.png")).lastPathComponent
        try Data("bundled".utf8).write(to: readOnly.url.appendingPathComponent(name))
        for i in 0..<5 { try cache.storeData(bytes(100), forKey: "k\(i)") }
        try cache.removeAll()
        #expect(Disk.entryNames(directory.url).isEmpty)
        #expect(cache.count() == 0 && cache.totalSize() == 0)
        #expect(cache.data(forKey: "bundled.png") == Data("bundled".utf8))
        #expect(cache.data(forKey: "k0") == nil)
    }

    @Test func readOnlyPathsAreSearchedAfterTheDirectoryAndNeverWritten() async throws {
        let readOnly = TemporaryDirectory("readonly")
        let cache = cache { $0.additionalReadOnlyPaths = [readOnly.url] }
        let jpeg = try TestData.data("jpeg/pillow/pil_sample_rgb.jpg")
        let key = "https://cdn.test/bundled.jpg"
        let name = URL(fileURLWithPath: cache.path(forKey: key)).lastPathComponent
        // A plain image file, as SDWebImage or a build step would leave it: no header.
        try jpeg.write(to: readOnly.url.appendingPathComponent(name))
        let hit = try #require(try await cache.query(key: key, type: .disk))
        #expect(hit.entry.data == jpeg && hit.entry.validators == nil && hit.source == .disk)
        #expect(cache.containsData(forKey: key))
        try cache.storeData(Data("newer".utf8), forKey: key)
        #expect(cache.data(forKey: key) == Data("newer".utf8))
        try cache.removeData(forKey: key)
        #expect(cache.data(forKey: key) == jpeg)
        #expect(cache.clean().removedCount == 0)
        #expect(Disk.entryNames(readOnly.url) == [name])
    }

    @Test func emptyBytesAreAnEntry() throws {
        let cache = cache()
        try cache.storeData(Data(), validators: CacheValidators(etag: "e"), forKey: "empty")
        let entry = try #require(cache.entry(forKey: "empty"))
        #expect(entry.data == Data())
        #expect(entry.validators?.etag == "e")
    }

    @Test func truncatedOrCorruptFilesAreMissesNotPartialBytes() throws {
        let cache = cache()
        try cache.storeData(bytes(5000), forKey: "truncated")
        try cache.storeData(bytes(5000), forKey: "garbled")
        // As a power loss can leave a file: shorter than its header says.
        let truncated = cache.path(forKey: "truncated")
        #expect(truncate(truncated, 4000) == 0)
        #expect(cache.data(forKey: "truncated") == nil)
        // The magic, then nonsense.
        var garbled = Data(EntryFormat.magic)
        garbled.append(contentsOf: [UInt8](repeating: 0xFF, count: 100))
        try garbled.write(to: URL(fileURLWithPath: cache.path(forKey: "garbled")))
        #expect(cache.data(forKey: "garbled") == nil)
        // An empty file (what a crash before any write could leave without atomic renames).
        try Data().write(to: URL(fileURLWithPath: cache.path(forKey: "zero")))
        #expect(cache.data(forKey: "zero") == nil)
        #expect(!cache.containsData(forKey: "zero"))
    }

    @Test func symbolicLinksInTheDirectoryAreNotFollowed() throws {
        let cache = cache()
        let secret = directory.url.deletingLastPathComponent().appendingPathComponent("secret-\(UUID().uuidString)")
        try Data("secret".utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        try FileManager.default.createSymbolicLink(atPath: cache.path(forKey: "link"), withDestinationPath: secret.path)
        #expect(cache.data(forKey: "link") == nil)
    }

    @Test func deletedDirectoryIsRecreatedByTheNextStore() throws {
        let cache = cache()
        try cache.storeData(bytes(100), forKey: "before")
        cache.waitUntilIdle()
        try FileManager.default.removeItem(at: directory.url)
        #expect(cache.data(forKey: "before") == nil)
        #expect(!cache.containsData(forKey: "before"))
        try cache.storeData(bytes(200), forKey: "after")
        #expect(cache.data(forKey: "after") == bytes(200))
        #expect(cache.count() == 1)
        #expect(cache.totalSize() == Disk.totalSize(directory.url))
    }

    @Test func expiredEntriesAreMissesBeforeAnyClean() throws {
        let cache = cache { $0.maxAge = 60 }
        try cache.storeData(bytes(10), forKey: "old")
        try cache.storeData(bytes(10), forKey: "new")
        Disk.backdate(cache.path(forKey: "old"), secondsAgo: 120)
        #expect(cache.data(forKey: "old") == nil)
        #expect(!cache.containsData(forKey: "old"))
        #expect(cache.data(forKey: "new") == bytes(10))
    }

    @Test func concurrentStoresAndReadsOfOneKeyNeverSeeAMixture() async throws {
        let cache = cache()
        let versions = (0..<8).map { bytes(20_000 + $0, seed: UInt8($0)) }
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for round in 0..<50 {
                        let v = (writer + round) % versions.count
                        try? cache.storeData(versions[v], validators: .init(etag: "\(v)"), forKey: "hot")
                    }
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<200 {
                        guard let entry = cache.entry(forKey: "hot") else { continue }
                        let v = Int(entry.validators?.etag ?? "") ?? -1
                        #expect(versions.indices.contains(v) && entry.data == versions[v])
                    }
                }
            }
        }
        #expect(cache.count() == 1)
        #expect(Disk.temporaryNames(directory.url).isEmpty)
    }

    /// New entries are written under their own names: a reader racing the writes finds each one
    /// whole or not at all, never the part written so far.
    @Test func newEntriesAreReadWholeOrMissedWhileTheyAreWritten() async throws {
        let cache = cache()
        let payloads = (0..<40).map { bytes(300_000 + 4096 * $0, seed: UInt8($0)) }
        final class Flag: Sendable { let value = Atomic(false) }
        let written = Flag()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for (index, payload) in payloads.enumerated() {
                    try? cache.storeData(payload, validators: .init(etag: "\(index)"), forKey: "new-\(index)")
                }
                written.value.store(true, ordering: .releasing)
            }
            for _ in 0..<2 {
                group.addTask {
                    var hits = 0
                    while !written.value.load(ordering: .acquiring) || hits == 0 {
                        for index in payloads.indices {
                            guard let entry = cache.entry(forKey: "new-\(index)") else { continue }
                            #expect(entry.data == payloads[index] && entry.validators?.etag == "\(index)", "new-\(index): \(entry.data?.count ?? 0) bytes")
                            hits += 1
                        }
                    }
                }
            }
        }
        #expect(cache.count() == payloads.count)
        #expect(cache.totalSize() == Disk.totalSize(directory.url))
        #expect(Disk.temporaryNames(directory.url).isEmpty)
    }

    /// A half-written file a killed writer left under an entry's name is a miss, and the next
    /// store of the key replaces it whole (through a temporary file and a rename).
    @Test func aHalfWrittenEntryIsReplacedByTheNextStore() throws {
        let cache = cache()
        try cache.storeData(bytes(50_000), forKey: "k")
        let path = cache.path(forKey: "k")
        #expect(truncate(path, 20_000) == 0)
        #expect(cache.data(forKey: "k") == nil)
        try cache.storeData(bytes(30_000, seed: 9), validators: .init(etag: "v2"), forKey: "k")
        #expect(cache.entry(forKey: "k")?.data == bytes(30_000, seed: 9))
        #expect(cache.entry(forKey: "k")?.validators?.etag == "v2")
        #expect(cache.count() == 1)
        #expect(Disk.temporaryNames(directory.url).isEmpty)
    }

}
