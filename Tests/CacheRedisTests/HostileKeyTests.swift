import CacheRedis
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

/// Keys that would be protocol or pattern syntax if they reached Redis as text: each is stored
/// and read back under its own entry, and the server holds exactly one Redis key per cache key.
@Suite struct HostileKeyTests {
    static let keys: [String] = [
        "", " ", "a b c", "\r\n", "k\r\nFLUSHALL\r\n", "*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$1\r\ny\r\n", "k\u{0}z", "*", "prefix:*",
        "[a-z]?", "\\", "\"quoted\"", String(repeating: "K", count: 10 * 1024), String(repeating: "\r\n", count: 5000),
    ]

    @Test func hostileKeysHoldTheirOwnEntries() async throws {
        let server = try RedisServer()
        let cache = try makeCache(on: server)
        _ = server.cli("SET", "x", "untouched")
        for (index, key) in Self.keys.enumerated() {
            try await cache.store(CacheEntry(data: payload(index)), forKey: key, type: .all)
        }
        for (index, key) in Self.keys.enumerated() {
            let hit = try await cache.query(key: key, type: .all)
            #expect(hit?.entry.data == payload(index), "key \(key.prefix(40).debugDescription)")
            #expect(await cache.contains(key: key, type: .all) == .disk)
        }
        #expect(server.cli("DBSIZE") == "\(Self.keys.count + 1)")
        #expect(server.cli("GET", "x") == "untouched")
        #expect(server.cli("EXISTS", "y") == "0")

        try await cache.remove(key: "*", type: .all)
        #expect(try await cache.query(key: "*", type: .all) == nil)
        #expect(try await cache.query(key: "prefix:*", type: .all)?.entry.data == payload(Self.keys.firstIndex(of: "prefix:*")!))
        #expect(server.cli("DBSIZE") == "\(Self.keys.count)")
    }

    @Test func aPrefixWithGlobCharactersClearsOnlyItself() async throws {
        let server = try RedisServer()
        let starred = try makeCache(on: server) { $0.keyPrefix = "a*:" }
        let plain = try makeCache(on: server) { $0.keyPrefix = "ab:" }
        try await starred.store(CacheEntry(data: payload(1)), forKey: "k", type: .all)
        try await plain.store(CacheEntry(data: payload(2)), forKey: "k", type: .all)
        try await starred.clear(type: .all)
        #expect(try await starred.query(key: "k", type: .all) == nil)
        #expect(try await plain.query(key: "k", type: .all)?.entry.data == payload(2))
    }
}
