import CacheRedis
import Foundation
import ImageKernel
import Testing

/// `redis+cluster://` seeds are accepted wherever a Redis URL is.
@Suite struct URLTests {
    @Test func clusterSeedsParse() throws {
        let configuration = try RedisCache.Configuration(url: "redis+cluster://:s3cret@h1:7000,h2:7001,[::1]:7002")
        #expect(configuration.isCluster)
        #expect(configuration.clusterSeeds.map(\.host) == ["h1", "h2", "::1"])
        #expect(configuration.clusterSeeds.map(\.port) == [7000, 7001, 7002])
        #expect(configuration.clusterSeeds.allSatisfy { $0.password == "s3cret" && $0.database == 0 })
        #expect(try RedisCache.Configuration(url: "REDIS+CLUSTER://h1:7000/0").clusterSeeds.count == 1)
        #expect(try !RedisCache.Configuration(url: "redis://h1:7000/2").isCluster)
        let cache = try RedisCache(url: "redis+cluster://h1:7000,h2:7001")
        #expect(cache.name.contains("cluster h1:7000,h2:7001"))
    }

    @Test func badClusterURLsAreTypedErrors() {
        for url in ["redis+cluster://", "redis+cluster://h1:7000,,h2:7001", "redis+cluster://h1:7000/3", "redis+cluster://h1:99999", "rediss+cluster://h1:1"] {
            #expect(throws: ImageKernelError.self, "\(url)") { try RedisCache.Configuration(url: url) }
            do {
                _ = try RedisCache.Configuration(url: url)
            } catch {
                #expect(error.code == .invalidArgument && error.stage == .cache, "\(url): \(error)")
            }
        }
    }
}
