import CacheRedis
import Foundation
import ImageKernelTestSupport
import ImageKernel
import Testing

/// A cache on `server` under a prefix of its own, so caches on one server never see each other.
func makeCache(on server: RedisServer, _ adjust: (inout RedisCache.Configuration) -> Void = { _ in }) throws -> RedisCache {
    try makeCache(url: server.url, adjust)
}

/// A cache on the server or cluster at `url` under a prefix of its own.
func makeCache(url: String, _ adjust: (inout RedisCache.Configuration) -> Void = { _ in }) throws -> RedisCache {
    var configuration = try RedisCache.Configuration(url: url)
    configuration.keyPrefix = "test-\(UUID().uuidString):"
    // Generous for debug and ThreadSanitizer builds on a loaded machine; the fault tests set their own.
    configuration.timeout = .seconds(2)
    adjust(&configuration)
    return RedisCache(configuration: configuration)
}

/// Deterministic bytes of `count` bytes for entry `index`.
func payload(_ index: Int, count: Int = 1000) -> Data {
    var state = UInt64(index) &* 0x9E37_79B9_7F4A_7C15 &+ 1
    return Data((0..<count).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: state >> 33)
    })
}

/// A fresh directory under the temporary directory, removed on deinit.
final class TemporaryDirectory: Sendable {
    let url: URL

    init(_ name: String) {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cacheredis-\(name)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func child(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// The error a store throws, or nil (recorded as an issue) when it succeeds.
func storeError(
    _ cache: any ImageCache, _ entry: CacheEntry, key: String = "k", sourceLocation: SourceLocation = #_sourceLocation
) async -> ImageKernelError? {
    do {
        try await cache.store(entry, forKey: key, type: .all)
        Issue.record("the store succeeded", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}
