import CacheDisk
import CacheRedis
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

/// memory → disk → Redis: what one process stores, another finds in Redis, and the hit lands on
/// its own disk and reports that the shared tier answered.
@Suite struct StackTests {
    @Test func aSharedHitIsPromotedToTheLocalDisk() async throws {
        let server = try RedisServer()
        let prefix = "stack-\(UUID().uuidString):"
        let directory = TemporaryDirectory("stack")
        func stack(_ name: String) throws -> (TieredCache, DiskCache) {
            let disk = DiskCache(directory: directory.child(name))
            return (TieredCache(backing: disk, lowerTiers: [try makeCache(on: server) { $0.keyPrefix = prefix }]), disk)
        }
        let (first, _) = try stack("first")
        let (second, secondDisk) = try stack("second")
        let validators = CacheValidators(etag: "\"v1\"")
        try await first.store(CacheEntry(data: payload(1, count: 20_000), validators: validators), forKey: "https://o/1.jpg", type: .all)

        #expect(await secondDisk.contains(key: "https://o/1.jpg", type: .all) == .none)
        let shared = try #require(try await second.query(key: "https://o/1.jpg", type: .all))
        #expect(shared.isShared && shared.source == .disk)
        #expect(shared.entry.data == payload(1, count: 20_000) && shared.entry.validators == validators)

        #expect(await secondDisk.contains(key: "https://o/1.jpg", type: .all) == .disk)
        let local = try #require(try await second.query(key: "https://o/1.jpg", type: .all))
        #expect(!local.isShared && local.source == .disk)
        #expect(local.entry.data == payload(1, count: 20_000) && local.entry.validators == validators)
    }

    @Test func aDeadSharedTierLeavesTheLocalTiersWorking() async throws {
        let server = try RedisServer()
        let directory = TemporaryDirectory("dead")
        let disk = DiskCache(directory: directory.child("disk"))
        let stack = TieredCache(backing: disk, lowerTiers: [try makeCache(on: server)])
        server.kill()
        #expect(await storeError(stack, CacheEntry(data: payload(1)))?.plugin == "CacheRedis")
        #expect(try await stack.query(key: "k", type: .all)?.entry.data == payload(1))
        #expect(try await stack.query(key: "other", type: .all) == nil)
    }
}
