import CacheDisk
import Foundation
import ImageKernel
import Testing

/// SDWebImage's memory-and-disk cases with the kernel's `TieredCache` in front of a `DiskCache`.
@Suite struct TieredCacheTests {
    let directory = TemporaryDirectory()
    let disk: DiskCache
    let tiered: TieredCache
    let entry: CacheEntry

    init() throws {
        disk = DiskCache(directory: directory.url)
        tiered = TieredCache(memory: MemoryCache(), backing: disk)
        let image = try Image(width: 2, height: 1, pixelFormat: .rgba8, pixels: [1, 2, 3, 255, 4, 5, 6, 255])
        entry = CacheEntry(image: image, data: Data("encoded".utf8), validators: CacheValidators(etag: "t"))
    }

    @Test func clearingDiskKeepsMemory() async throws {
        try await tiered.store(entry, forKey: "k", type: .all)
        try await tiered.clear(type: .disk)
        #expect(Disk.entryNames(directory.url).isEmpty)
        let hit = try #require(try await tiered.query(key: "k", type: .all))
        #expect(hit.source == .memory && hit.entry.image == entry.image)
        #expect(try await tiered.query(key: "k", type: .disk) == nil)
    }

    @Test func clearingMemoryKeepsDisk() async throws {
        try await tiered.store(entry, forKey: "k", type: .all)
        try await tiered.clear(type: .memory)
        #expect(try await tiered.query(key: "k", type: .memory) == nil)
        let hit = try #require(try await tiered.query(key: "k", type: .all))
        #expect(hit.source == .disk && hit.entry.data == entry.data && hit.entry.validators == entry.validators)
    }

    @Test func memoryOnlyStoreLeavesNoFile() async throws {
        try await tiered.store(entry, forKey: "k", type: .memory)
        #expect(Disk.entryNames(directory.url).isEmpty)
        #expect(disk.count() == 0)
        #expect(await tiered.contains(key: "k", type: .all) == .memory)
        #expect(await tiered.contains(key: "k", type: .disk) == ImageCacheType.none)
    }

    @Test func diskOnlyStoreLeavesMemoryEmpty() async throws {
        try await tiered.store(entry, forKey: "k", type: .disk)
        #expect(tiered.memory.count == 0)
        #expect(Disk.entryNames(directory.url).count == 1)
        #expect(await tiered.contains(key: "k", type: .all) == .disk)
    }

    @Test func removingFromBothLeavesNothing() async throws {
        try await tiered.store(entry, forKey: "k", type: .all)
        try await tiered.remove(key: "k", type: .all)
        #expect(try await tiered.query(key: "k", type: .all) == nil)
        #expect(Disk.entryNames(directory.url).isEmpty)
        #expect(await tiered.contains(key: "k", type: .all) == ImageCacheType.none)
    }

    @Test func removingFromMemoryOnlyKeepsTheFile() async throws {
        try await tiered.store(entry, forKey: "k", type: .all)
        try await tiered.remove(key: "k", type: .memory)
        #expect(try await tiered.query(key: "k", type: .memory) == nil)
        let hit = try #require(try await tiered.query(key: "k", type: .all))
        #expect(hit.source == .disk && hit.entry.data == entry.data)
        #expect(FileManager.default.fileExists(atPath: disk.path(forKey: "k")))
    }
}
