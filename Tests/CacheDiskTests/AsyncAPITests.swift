@testable import CacheDisk
import Dispatch
import Foundation
import ImageKernel
import Testing

/// The async forms of count, totalSize, clean and waitUntilIdle: same answers as the blocking
/// ones, and the waiting happens on the cache's queue, not on a thread of the cooperative pool.
@Suite struct AsyncAPITests {
    let directory = TemporaryDirectory()

    func cache(_ configure: (inout DiskCache.Configuration) -> Void = { _ in }) -> DiskCache {
        var configuration = DiskCache.Configuration(directory: directory.url)
        configure(&configuration)
        return DiskCache(configuration: configuration)
    }

    @Test func countAsyncAndTotalSizeAsyncFollowStores() async throws {
        let cache = cache()
        #expect(await cache.countAsync() == 0)
        #expect(await cache.totalSizeAsync() == 0)
        for i in 0..<3 { try cache.storeData(bytes(1000 * (i + 1)), forKey: "k\(i)") }
        #expect(await cache.countAsync() == 3)
        #expect(await cache.totalSizeAsync() == Disk.totalSize(directory.url))
        #expect(await cache.totalSizeAsync() == cache.totalSize())
        try cache.removeData(forKey: "k0")
        #expect(await cache.countAsync() == 2)
    }

    @Test func countAsyncSeesEntriesAnotherInstanceWrote() async throws {
        let writer = cache()
        for i in 0..<4 { try writer.storeData(bytes(100), forKey: "k\(i)") }
        await writer.waitUntilIdleAsync()
        #expect(await cache().countAsync() == 4)
    }

    @Test func cleanAsyncRemovesExpiredEntries() async throws {
        let cache = cache { $0.maxAge = 60 }
        for i in 0..<3 { try cache.storeData(bytes(100), forKey: "k\(i)") }
        await cache.waitUntilIdleAsync()
        for i in 0..<2 { Disk.backdate(cache.path(forKey: "k\(i)"), secondsAgo: 120) }
        let result = await cache.cleanAsync()
        #expect(result.removedCount == 2)
        #expect(Disk.entryNames(directory.url).count == 1)
        #expect(await cache.countAsync() == 1)
    }

    @Test func waitUntilIdleAsyncReturnsAfterTheTrimAStoreStarted() async throws {
        let cache = cache { $0.maxSize = 10_000 }
        for i in 0..<30 { try cache.storeData(bytes(1000, seed: UInt8(i)), forKey: "k\(i)") }
        await cache.waitUntilIdleAsync()
        #expect(Disk.totalSize(directory.url) <= 10_000)
        #expect(cache.statistics.trims >= 1)
    }

    /// Many more waiters than the pool has threads, all waiting for a busy maintenance queue:
    /// had each one blocked a pool thread (as `maintenance.sync` does), nothing else could run
    /// until the queue freed up.
    @Test func waitersHoldNoThreadOfTheCooperativePool() async throws {
        let cache = cache()
        await cache.waitUntilIdleAsync()
        let gate = DispatchSemaphore(value: 0)
        let openedByTimeout = Locked(false)
        cache.maintenance.async { gate.wait() }
        // A safety valve, so that a regression fails instead of hanging.
        DispatchQueue.global().asyncAfter(deadline: .now() + 20) {
            openedByTimeout.withLock { $0 = true }
            gate.signal()
        }
        let waiters = 4 * ProcessInfo.processInfo.activeProcessorCount + 4
        let started = Locked(0)
        let results = Task {
            await withTaskGroup(of: Int.self) { group in
                for index in 0..<waiters {
                    group.addTask {
                        started.withLock { $0 += 1 }
                        switch index % 4 {
                        case 0: return await cache.countAsync()
                        case 1: return await cache.totalSizeAsync()
                        case 2: return await cache.cleanAsync().removedCount
                        default: await cache.waitUntilIdleAsync(); return 0
                        }
                    }
                }
                return await group.reduce(0, +)
            }
        }
        // Every waiter has started and is waiting; the pool still runs this task.
        while started.withLock({ $0 }) < waiters { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(50))
        let stillRunning = await Task { 42 }.value
        #expect(stillRunning == 42)
        #expect(!openedByTimeout.withLock { $0 }, "the pool was blocked until the safety valve opened the queue")
        gate.signal()
        #expect(await results.value == 0)
    }
}
