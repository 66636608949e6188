import CacheRedis
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

/// Concurrent callers share a connection's pipeline: replies come back in order, each to its
/// own caller, and a connection that dies with commands in flight fails every one of them.
@Suite struct PipelineTests {
    @Test func concurrentQueriesAndStoresOnOneConnectionEachGetTheirOwnReply() async throws {
        let server = try RedisServer()
        let cache = try makeCache(on: server) { $0.connections = 1 }
        let connectionsBefore = Int(server.info("total_connections_received") ?? "") ?? 0
        let count = 48
        for index in 0..<count {
            try await cache.store(CacheEntry(data: payload(index, count: 20_000 + index)), forKey: "k\(index)", type: .all)
        }
        let wrong = await withTaskGroup(of: Int.self) { group in
            for round in 0..<4 {
                for index in 0..<count {
                    group.addTask {
                        if round == 1 {  // stores (status replies) between the hits (bulk replies)
                            let stored = (try? await cache.store(CacheEntry(data: payload(1000 + index)), forKey: "s\(index)", type: .all)) != nil
                            return stored ? 0 : 1
                        }
                        let hit = try? await cache.query(key: "k\(index)", type: .all)
                        return hit?.entry.data == payload(index, count: 20_000 + index) ? 0 : 1
                    }
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
        for index in 0..<count {
            #expect(try await cache.query(key: "s\(index)", type: .all)?.entry.data == payload(1000 + index))
        }
        // One connection carried all of it (the other one is the redis-cli asking).
        #expect(Int(server.info("total_connections_received") ?? "") == connectionsBefore + 2)
    }

    @Test func aServerKilledWithCommandsInFlightFailsThemAllAndTheNextConnects() async throws {
        let server = try RedisServer()
        let cache = try makeCache(on: server) { $0.connections = 1; $0.retryInterval = .zero }
        try await cache.store(CacheEntry(data: payload(1, count: 200_000)), forKey: "k", type: .all)
        let answered = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    if index == 8 { server.kill() }
                    let hit = try? await cache.query(key: "k", type: .all)
                    return hit == nil || hit?.entry.data == payload(1, count: 200_000)
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(answered == 64)
        #expect(try await cache.query(key: "k", type: .all) == nil)
        try server.restart()
        var stored = false
        for _ in 0..<100 where !stored {
            stored = (try? await cache.store(CacheEntry(data: payload(2)), forKey: "k", type: .all)) != nil
            if !stored { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(try await cache.query(key: "k", type: .all)?.entry.data == payload(2))
    }
}
