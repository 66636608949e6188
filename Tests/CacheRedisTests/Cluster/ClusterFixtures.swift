@testable import CacheRedis
import Foundation
import ImageKernel
import ImageKernelTestSupport
import Testing

/// A cache on `cluster` under a prefix of its own; a node that failed is tried again after 50 ms.
func makeCache(on cluster: RedisClusterServer, _ adjust: (inout RedisCache.Configuration) -> Void = { _ in }) throws -> RedisCache {
    try makeCache(url: cluster.url) { configuration in
        configuration.retryInterval = .milliseconds(50)
        adjust(&configuration)
    }
}

/// A cache whose seeds are the fake nodes' ports; the timeout (1 s) leaves room for
/// ThreadSanitizer beside the real clusters of the other suites, and bounds the stalled node's tests.
func makeCache(seeds: [Int], _ adjust: (inout RedisCache.Configuration) -> Void = { _ in }) throws -> RedisCache {
    var configuration = try RedisCache.Configuration(url: "redis+cluster://" + seeds.map { "127.0.0.1:\($0)" }.joined(separator: ","))
    configuration.keyPrefix = "t:"
    configuration.timeout = .seconds(1)
    configuration.retryInterval = .zero
    adjust(&configuration)
    return RedisCache(configuration: configuration)
}

/// The Redis key the cache uses for `key` under prefix `t:` (as the fake nodes see it).
func redisKey(_ key: String, prefix: String = "t:") -> String {
    String(decoding: KeyNaming(prefix: prefix).redisKey(for: key), as: UTF8.self)
}

/// The stored form of plain bytes (no validators), as the fake nodes must hold it for a hit.
func storedValue(_ data: Data) -> Data {
    Data("IKR1".utf8) + Data([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) + data
}
