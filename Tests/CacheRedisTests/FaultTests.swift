import CacheRedis
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

/// The shared tier may speed a load up, never stop one: a dead, restarted, hung or full server
/// gives misses and typed store errors, never a crash, a hang or a foreign entry.
@Suite struct FaultTests {
    @Test func aKilledServerGivesMissesAndTypedStoreErrors() async throws {
        let server = try RedisServer()
        let cache = try makeCache(on: server)
        try await cache.store(CacheEntry(data: payload(1)), forKey: "k", type: .all)
        server.kill()
        for _ in 0..<3 {
            #expect(try await cache.query(key: "k", type: .all) == nil)
            #expect(await cache.contains(key: "k", type: .all) == .none)
            let error = await storeError(cache, CacheEntry(data: payload(2)))
            #expect(error.map { [.cannotConnect, .connectionLost, .timeout].contains($0.code) && $0.stage == .cache } == true, "\(String(describing: error))")
        }
    }

    @Test func hitsResumeAfterARestartWithoutANewClient() async throws {
        let server = try RedisServer()
        let cache = try makeCache(on: server) { $0.retryInterval = .milliseconds(20) }
        try await cache.store(CacheEntry(data: payload(1)), forKey: "k", type: .all)
        #expect(try await cache.query(key: "k", type: .all) != nil)
        server.kill()
        #expect(try await cache.query(key: "k", type: .all) == nil)
        try server.restart()
        // The restarted server is empty; the same cache object stores and hits again once it has
        // reconnected (a hang guard bounds the wait, it is not a timing assertion).
        var resumed = false
        for _ in 0..<500 where !resumed {
            try? await cache.store(CacheEntry(data: payload(3)), forKey: "k", type: .all)
            resumed = try await cache.query(key: "k", type: .all)?.entry.data == payload(3)
            if !resumed { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(resumed)
        #expect(server.cli("DBSIZE") == "1")
    }

    @Test func aServerThatNeverAnswersGivesMissesWithinTheTimeout() async throws {
        let silent = try SilentListener()
        let cache = RedisCache(configuration: .init(
            endpoint: .init(port: silent.port), timeout: .milliseconds(50), connections: 2, retryInterval: .zero))
        for index in 0..<5 {
            #expect(try await cache.query(key: "k\(index)", type: .all) == nil)
            #expect(await cache.contains(key: "k\(index)", type: .all) == .none)
        }
        #expect(await storeError(cache, CacheEntry(data: payload(1)))?.code == .timeout)
        let concurrent = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<20 { group.addTask { (try? await cache.query(key: "c\(index)", type: .all)) == nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(concurrent == 20)
    }

    @Test func anUnreachablePortGivesMisses() async throws {
        let port = try SilentListener().port  // closed again at once: nothing listens there
        let cache = RedisCache(configuration: .init(endpoint: .init(port: port)))
        #expect(try await cache.query(key: "k", type: .all) == nil)
        #expect(await storeError(cache, CacheEntry(data: payload(1)))?.code == .cannotConnect)
    }

    @Test func aFullServerWithLRUEvictsAndNothingBreaks() async throws {
        let server = try RedisServer(extraArguments: ["--maxmemory", "2mb", "--maxmemory-policy", "allkeys-lru"])
        let cache = try makeCache(on: server)
        let count = 200
        for index in 0..<count {
            try await cache.store(CacheEntry(data: payload(index, count: 50_000)), forKey: "img-\(index)", type: .all)
        }
        var hits = 0
        for index in 0..<count {
            guard let hit = try await cache.query(key: "img-\(index)", type: .all) else { continue }
            #expect(hit.entry.data == payload(index, count: 50_000), "entry \(index) came back changed")
            hits += 1
        }
        #expect(hits > 0 && hits < count)
        #expect(try await cache.query(key: "img-\(count - 1)", type: .all)?.entry.data == payload(count - 1, count: 50_000))
        #expect((Int(server.info("evicted_keys") ?? "") ?? 0) > 0)
    }
}
