import CacheDisk
import CacheRedis
import Foundation
import ImageKernelTestSupport
import ImageKernel
import ImageKernelConformance
import Testing

/// The shared cache conformance suite against a real redis-server: the Redis cache alone, and
/// the full stack memory → disk → Redis. Every case gets its own key prefix (and directory).
@Suite(.serialized) struct ConformanceTests {
    @Test func redisCachePassesTheCacheSuite() async throws {
        let server = try RedisServer()
        try await CacheConformance(makeCache: { try makeCache(on: server) }, tiers: .diskOnly).run()
    }

    @Test func memoryDiskRedisStackPassesTheCacheSuite() async throws {
        let server = try RedisServer()
        let root = TemporaryDirectory("conformance")
        try await CacheConformance(
            makeCache: {
                TieredCache(
                    memory: MemoryCache(), backing: DiskCache(directory: root.child(UUID().uuidString)),
                    lowerTiers: [try makeCache(on: server)])
            },
            tiers: .memoryAndDisk
        ).run()
    }
}
