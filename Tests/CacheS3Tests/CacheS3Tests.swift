import CacheS3
import Foundation
import ImageKernel
import ImageKernelConformance
import ImageKernelTestSupport
import LoaderS3
import Testing

/// ``S3Cache`` on a real RADOS Gateway: the cache conformance suite, storage class, TTL from
/// `Last-Modified`, and a gateway stopped mid-run (misses, never failed loads).
@Suite(.serialized, .enabled(if: CephRGWServer.isAvailable)) struct CacheS3Tests {
    static func cache(_ server: CephRGWServer, bucket: String, prefix: String? = nil, configure: (inout S3Cache.Configuration) -> Void = { _ in }) -> S3Cache {
        var s3 = S3Loader.Configuration(environment: [:])
        s3.endpoint = server.endpoint
        s3.credentials = StaticS3Credentials(server.credentials)
        var configuration = S3Cache.Configuration(bucket: bucket, prefix: prefix ?? "ik-\(UUID().uuidString.prefix(8))/", s3: s3)
        configuration.timeout = .seconds(2)
        configure(&configuration)
        return S3Cache(configuration: configuration)
    }

    @Test func passesTheCacheConformanceSuite() async throws {
        let server = try CephRGWServer.shared()
        let bucket = try await server.makeBucket("conformance")
        try await CacheConformance(makeCache: { Self.cache(server, bucket: bucket) }, tiers: .diskOnly).run()
    }

    @Test func storesBytesValidatorsAndStorageClass() async throws {
        let server = try CephRGWServer.shared()
        let bucket = try await server.makeBucket("cache")
        let cache = Self.cache(server, bucket: bucket) { $0.storageClass = "STANDARD" }
        let validators = CacheValidators(etag: "\"abc\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT")
        try await cache.store(CacheEntry(data: Data("bytes".utf8), validators: validators), forKey: "https://x/é.jpg", type: .all)
        let hit = try #require(try await cache.query(key: "https://x/é.jpg", type: .all))
        #expect(hit.entry.data == Data("bytes".utf8))
        #expect(hit.entry.validators == validators)
        #expect(hit.source == .disk && hit.isShared)
        #expect(await cache.contains(key: "https://x/é.jpg", type: .disk) == .disk)
        #expect(try await cache.query(key: "https://x/é.jpg", type: .memory) == nil)
        let refused = Self.cache(server, bucket: bucket) { $0.storageClass = "NO_SUCH_CLASS" }
        let error = await #expect(throws: ImageKernelError.self) {
            try await refused.store(CacheEntry(data: Data("x".utf8)), forKey: "k", type: .all)
        }
        #expect(error?.stage == .cache && error?.plugin == "CacheS3")
    }

    @Test func entriesOlderThanTheTimeToLiveAreMisses() async throws {
        let server = try CephRGWServer.shared()
        let bucket = try await server.makeBucket("ttl")
        let prefix = "ttl/"
        let writer = Self.cache(server, bucket: bucket, prefix: prefix)
        try await writer.store(CacheEntry(data: Data("old".utf8)), forKey: "k", type: .all)
        // Last-Modified has one-second resolution: wait until the object is surely older than 1 s.
        try await Task.sleep(for: .milliseconds(2_100))
        let shortLived = Self.cache(server, bucket: bucket, prefix: prefix) { $0.timeToLive = .seconds(1) }
        #expect(try await shortLived.query(key: "k", type: .all) == nil)
        #expect(await shortLived.contains(key: "k", type: .all) == .none)
        let longLived = Self.cache(server, bucket: bucket, prefix: prefix) { $0.timeToLive = .seconds(3600) }
        #expect(try await longLived.query(key: "k", type: .all)?.entry.data == Data("old".utf8))
    }

    @Test func unreachableStoreIsAMissWithinTheTimeout() async throws {
        let silent = try SilentListener()
        var s3 = S3Loader.Configuration(environment: [:])
        s3.endpoint = URL(string: "http://127.0.0.1:\(silent.port)")!
        s3.credentials = StaticS3Credentials(S3Credentials(accessKeyID: "a", secretAccessKey: "b"))
        var configuration = S3Cache.Configuration(bucket: "b", s3: s3)
        configuration.timeout = .milliseconds(200)
        let cache = S3Cache(configuration: configuration)
        let started = ContinuousClock.now
        #expect(try await cache.query(key: "k", type: .all) == nil)
        #expect(await cache.contains(key: "k", type: .all) == .none)
        let error = await #expect(throws: ImageKernelError.self) { try await cache.store(CacheEntry(data: Data("x".utf8)), forKey: "k", type: .all) }
        #expect(error?.code == .timeout && error?.stage == .cache)
        // A hang guard, not a timing assertion: three 200 ms-bounded requests are far below it.
        #expect(ContinuousClock.now - started < .seconds(10))
    }
}
