import CacheRedis
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

@Suite struct StoreAndQueryTests {
    @Test func bytesAndValidatorsComeBackFromTheSharedTier() async throws {
        let server = try RedisServer()
        let cache = try makeCache(on: server)
        let validators = CacheValidators(etag: "\"abc\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")
        try await cache.store(CacheEntry(data: payload(1, count: 50_000), validators: validators), forKey: "https://a/1.jpg", type: .all)
        let hit = try #require(try await cache.query(key: "https://a/1.jpg", type: .all))
        #expect(hit.entry.data == payload(1, count: 50_000))
        #expect(hit.entry.validators == validators)
        #expect(hit.source == .disk)
        #expect(hit.isShared)
        #expect(try await cache.query(key: "https://a/1.jpg", type: .memory) == nil)
    }

    @Test func keysAreHashedUnderThePrefix() async throws {
        let server = try RedisServer()
        let cache = try makeCache(on: server) { $0.keyPrefix = "fleet:" }
        try await cache.store(CacheEntry(data: payload(2)), forKey: "https://a/2.jpg", type: .all)
        let keys = server.cli("--raw", "KEYS", "*").split(separator: "\n").map(String.init)
        #expect(keys.count == 1)
        let key = try #require(keys.first)
        #expect(key.hasPrefix("fleet:"))
        #expect(key.count == "fleet:".count + 64)
        #expect(!key.contains("https"))
    }

    @Test func timeToLiveIsSetOnEachEntry() async throws {
        let server = try RedisServer()
        let cache = try makeCache(on: server) { $0.timeToLive = .seconds(300); $0.keyPrefix = "ttl:" }
        try await cache.store(CacheEntry(data: payload(3)), forKey: "k", type: .all)
        let key = server.cli("--raw", "KEYS", "ttl:*")
        let ttl = try #require(Int(server.cli("PTTL", key)))
        #expect(ttl > 0 && ttl <= 300_000)
        let forever = try makeCache(on: server) { $0.keyPrefix = "forever:" }
        try await forever.store(CacheEntry(data: payload(3)), forKey: "k", type: .all)
        #expect(server.cli("PTTL", server.cli("--raw", "KEYS", "forever:*")) == "-1")
    }

    @Test func valuesAboveTheLimitAreRefusedAndTheOldEntryStays() async throws {
        let server = try RedisServer()
        let cache = try makeCache(on: server) { $0.maxValueSize = 10_000 }
        try await cache.store(CacheEntry(data: payload(4, count: 5000)), forKey: "big", type: .all)
        let error = await storeError(cache, CacheEntry(data: payload(5, count: 20_000)), key: "big")
        #expect(error?.code == .tooLarge && error?.plugin == "CacheRedis")
        #expect(try await cache.query(key: "big", type: .all)?.entry.data == payload(4, count: 5000))
    }

    @Test func imageOnlyEntriesAreEncodedOrRefused() async throws {
        let server = try RedisServer()
        let image = try Image(width: 1, height: 1, pixelFormat: .rgba8, pixels: [1, 2, 3, 4])
        let refusing = try makeCache(on: server)
        #expect(await storeError(refusing, CacheEntry(image: image), key: "img")?.code == .unsupported)
        let encoding = try makeCache(on: server) { $0.imageEncoder = { image in Data(image.pixels) } }
        try await encoding.store(CacheEntry(image: image), forKey: "img", type: .all)
        #expect(try await encoding.query(key: "img", type: .all)?.entry.data == Data([1, 2, 3, 4]))
    }

    @Test func clearRemovesOnlyKeysUnderItsPrefix() async throws {
        let server = try RedisServer()
        let mine = try makeCache(on: server)
        let theirs = try makeCache(on: server)
        for index in 0..<1500 { try await mine.store(CacheEntry(data: payload(index, count: 10)), forKey: "k\(index)", type: .all) }
        try await theirs.store(CacheEntry(data: payload(9)), forKey: "k0", type: .all)
        _ = server.cli("SET", "unrelated", "x")
        try await mine.clear(type: .all)
        #expect(try await mine.query(key: "k0", type: .all) == nil)
        #expect(try await theirs.query(key: "k0", type: .all)?.entry.data == payload(9))
        #expect(server.cli("DBSIZE") == "2")
    }

    @Test func urlSelectsTheDatabaseAndAuthenticates() async throws {
        let server = try RedisServer(extraArguments: ["--requirepass", "s3cret"])
        let cache = try RedisCache(url: "redis://:s3cret@127.0.0.1:\(server.port)/3")
        try await cache.store(CacheEntry(data: payload(6)), forKey: "k", type: .all)
        #expect(try await cache.query(key: "k", type: .all)?.entry.data == payload(6))
        #expect(server.cli("-a", "s3cret", "-n", "3", "DBSIZE") == "1")
        #expect(server.cli("-a", "s3cret", "-n", "0", "DBSIZE") == "0")

        let wrong = try RedisCache(url: "redis://:nope@127.0.0.1:\(server.port)")
        #expect(try await wrong.query(key: "k", type: .all) == nil)
        #expect(await storeError(wrong, CacheEntry(data: payload(6)))?.code == .permissionDenied)
    }

    @Test func malformedURLsAreTypedErrors() {
        for url in ["http://127.0.0.1:6379", "redis://", "redis://host:70000", "redis://host/x", "redis://host/-1"] {
            #expect(throws: ImageKernelError.self, "\(url)") { try RedisCache.Endpoint(url: url) }
        }
        let endpoint = try? RedisCache.Endpoint(url: "redis://user:p%40ss@cache.example:6380/2")
        #expect(endpoint == RedisCache.Endpoint(host: "cache.example", port: 6380, username: "user", password: "p@ss", database: 2))
        #expect(endpoint?.description == "cache.example:6380/2")
    }
}
