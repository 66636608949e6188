import CacheDisk
import Foundation
import ImageKernel
import ImageKernelConformance
import Testing

/// The shared cache conformance suite, against the disk cache alone and behind a memory tier.
/// Every case gets a fresh directory.
@Suite struct ConformanceTests {
    @Test func diskCachePassesTheCacheSuite() async throws {
        let root = TemporaryDirectory("conformance")
        try await CacheConformance(
            makeCache: { DiskCache(directory: root.child(UUID().uuidString)) }, tiers: .diskOnly
        ).run()
    }

    @Test func tieredCacheOverDiskCachePassesTheCacheSuite() async throws {
        let root = TemporaryDirectory("conformance")
        try await CacheConformance(
            makeCache: { TieredCache(memory: MemoryCache(), backing: DiskCache(directory: root.child(UUID().uuidString))) },
            tiers: .memoryAndDisk
        ).run()
    }
}
