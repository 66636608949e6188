@testable import CacheDisk
import CoderJPEG
import CoderPNG
import Foundation
import ImageKernel
import Testing

/// The cache contract for entries with an image and no bytes: a persistent tier encodes them or
/// throws; it never deletes the old entry and writes nothing.
@Suite struct ImageOnlyEntryTests {
    let directory = TemporaryDirectory()
    let coders = CoderRegistry([JPEGCoder(), PNGCoder()])

    func cache(_ configure: (inout DiskCache.Configuration) -> Void = { _ in }) -> DiskCache {
        var configuration = DiskCache.Configuration(directory: directory.url)
        configure(&configuration)
        return DiskCache(configuration: configuration)
    }

    /// A 3×2 image whose pixels differ, with or without alpha.
    static func image(alpha: Bool) throws -> Image {
        let format: PixelFormat = alpha ? .rgba8 : .rgb8
        let pixels = (0..<(3 * 2 * format.bytesPerPixel)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        return try Image(width: 3, height: 2, pixelFormat: format, pixels: pixels)
    }

    @Test func anImageWithAlphaIsStoredAsLosslessPNGThatDecodesToTheSamePixels() async throws {
        let cache = cache { $0.imageEncoder = .registry(coders) }
        let image = try Self.image(alpha: true)
        let validators = CacheValidators(etag: "\"v1\"")
        try await cache.store(CacheEntry(image: image, validators: validators), forKey: "https://x.test/a", type: .all)
        let hit = try #require(try await cache.query(key: "https://x.test/a", type: .disk))
        let data = try #require(hit.entry.data)
        #expect(ImageFormat.sniff(data) == .png)
        #expect(hit.entry.validators == validators)
        let decoded = try coders.decode(data)
        #expect(decoded.width == 3 && decoded.height == 2)
        #expect(decoded.pixelFormat == .rgba8)
        #expect(decoded.rgba8Pixels() == image.rgba8Pixels())
    }

    @Test func anImageWithoutAlphaIsStoredAsJPEG() async throws {
        let cache = cache { $0.imageEncoder = .registry(coders) }
        try await cache.store(CacheEntry(image: try Self.image(alpha: false)), forKey: "k", type: .disk)
        let data = try #require(cache.data(forKey: "k"))
        #expect(ImageFormat.sniff(data) == .jpeg)
        let decoded = try coders.decode(data)
        #expect(decoded.width == 3 && decoded.height == 2)
    }

    @Test func bytesWinOverTheImageWhenTheEntryHasBoth() async throws {
        let cache = cache { $0.imageEncoder = DiskCache.ImageEncoder { _ throws(ImageKernelError) in Issue.record("encoded"); return Data() } }
        try await cache.store(CacheEntry(image: try Self.image(alpha: true), data: Data("original".utf8)), forKey: "k", type: .all)
        #expect(cache.data(forKey: "k") == Data("original".utf8))
    }

    @Test func withoutAnEncoderTheStoreThrowsUnsupportedAndKeepsTheOldEntry() async throws {
        let cache = cache()
        try cache.storeData(Data("old".utf8), validators: CacheValidators(etag: "old"), forKey: "k")
        let error = await storeError(cache, CacheEntry(image: try Self.image(alpha: true)), key: "k")
        #expect(error?.code == .unsupported)
        #expect(error?.stage == .cache)
        #expect(error?.plugin == "CacheDisk")
        #expect(error?.message.contains("imageEncoder") == true)
        #expect(cache.entry(forKey: "k")?.data == Data("old".utf8))
        #expect(cache.entry(forKey: "k")?.validators?.etag == "old")
    }

    @Test func aFailingEncoderThrowsItsCodeAtTheCacheStageAndKeepsTheOldEntry() async throws {
        // A registry without coders cannot encode anything.
        let cache = cache { $0.imageEncoder = .registry(CoderRegistry()) }
        try cache.storeData(Data("old".utf8), forKey: "k")
        let error = await storeError(cache, CacheEntry(image: try Self.image(alpha: false)), key: "k")
        #expect(error?.code == .noCoder)
        #expect(error?.stage == .cache)
        #expect((error?.cause as? ImageKernelError)?.stage == .encode)
        #expect(cache.data(forKey: "k") == Data("old".utf8))
    }

    @Test func anEntryWithNeitherImageNorBytesThrowsAndKeepsTheOldEntry() async throws {
        let cache = cache { $0.imageEncoder = .registry(coders) }
        try cache.storeData(Data("old".utf8), forKey: "k")
        #expect(await storeError(cache, CacheEntry(), key: "k")?.code == .invalidArgument)
        #expect(cache.data(forKey: "k") == Data("old".utf8))
    }

    @Test func aTieredStoreHandsImageOnlyEntriesToTheDiskTierWhichEncodes() async throws {
        let tiered = TieredCache(backing: cache { $0.imageEncoder = .registry(coders) })
        let image = try Self.image(alpha: true)
        try await tiered.store(CacheEntry(image: image), forKey: "k", type: .disk)
        #expect(tiered.memory.count == 0)
        let hit = try #require(try await tiered.query(key: "k", type: .disk))
        #expect(try coders.decode(try #require(hit.entry.data)).rgba8Pixels() == image.rgba8Pixels())
    }

    @Test func aTieredStoreWithoutAnEncoderThrowsAndTheDiskKeepsTheOldEntry() async throws {
        let disk = cache()
        try disk.storeData(Data("old".utf8), forKey: "k")
        let tiered = TieredCache(backing: disk)
        let image = try Self.image(alpha: true)
        let error = await storeError(tiered, CacheEntry(image: image), key: "k", type: .all)
        #expect(error?.code == .unsupported)
        #expect(disk.data(forKey: "k") == Data("old".utf8))
        // The memory tier took the image before the disk tier refused it.
        #expect(tiered.memory.image(forKey: "k") == image)
    }

    private func storeError(
        _ cache: any ImageCache, _ entry: CacheEntry, key: String, type: ImageCacheType = .all
    ) async -> ImageKernelError? {
        do {
            try await cache.store(entry, forKey: key, type: type)
            return nil
        } catch {
            return error  // typed: ImageKernelError
        }
    }
}
