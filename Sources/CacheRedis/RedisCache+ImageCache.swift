import Foundation
import ImageKernel

/// `ImageCache` conformance: one persistent, shared tier.
extension RedisCache {
    /// The bytes and validators stored for `key`, with source `.disk` and ``CacheQueryResult/isShared``;
    /// nil for a miss, for a `type` without the disk tier, and when the server cannot answer in time.
    /// - Throws: ``ImageKernelError`` with code `cancelled` when the task was cancelled.
    public func query(key: String, type: ImageCacheType) async throws(ImageKernelError) -> CacheQueryResult? {
        try ImageKernelError.checkCancellation(.cache, plugin: Self.pluginName)
        guard type.includesDisk else { return nil }
        let redisKey = naming.redisKey(for: key)
        let reply = await router.run(RedisCommand("GET", redisKey), key: redisKey, isRead: true)
        try ImageKernelError.checkCancellation(.cache, plugin: Self.pluginName)
        guard case .success(.string(let value)) = reply, let entry = StoredValue.decode(value) else { return nil }
        return CacheQueryResult(entry: entry, source: .disk, isShared: true)
    }

    /// Stores the entry's bytes and validators for `.disk` and `.all`, with the configured time to live.
    ///
    /// An entry with bytes is stored as it is (its image, if any, is not sent). An entry with an
    /// image but no bytes is encoded with ``Configuration/imageEncoder``.
    /// - Throws: ``ImageKernelError`` at stage `.cache`, plugin `"CacheRedis"`: `unsupported` for an
    ///   image-only entry without an encoder, `invalidArgument` for an entry with neither image nor
    ///   bytes, `tooLarge` above ``Configuration/maxValueSize``, and `cannotConnect`, `timeout` or
    ///   `connectionLost` when the server does not take it (a dropped write; the load goes on).
    ///   Whenever it throws, the entry stored before for `key` stays.
    public func store(_ entry: CacheEntry, forKey key: String, type: ImageCacheType) async throws(ImageKernelError) {
        guard type.includesDisk else { return }
        let bytes = try entry.persistentBytes(forKey: key, plugin: Self.pluginName, place: "in Redis", encode: configuration.imageEncoder)
        let value = StoredValue.encode(data: bytes, validators: entry.validators)
        guard value.count <= configuration.maxValueSize else {
            throw ImageKernelError(
                stage: .cache, plugin: Self.pluginName, code: .tooLarge,
                message: "\(value.count) bytes for \(key.debugDescription) exceed the shared tier's limit of \(configuration.maxValueSize); the entry in Redis was kept")
        }
        let redisKey = naming.redisKey(for: key)
        var arguments = [redisKey, value]
        if let ttl = configuration.timeToLive {
            let milliseconds = max(1, ttl.components.seconds * 1000 + ttl.components.attoseconds / 1_000_000_000_000_000)
            arguments += [Data("PX".utf8), Data(String(milliseconds).utf8)]
        }
        _ = try await run(RedisCommand("SET", arguments: arguments), key: redisKey)
    }

    /// Deletes the entry for `key` for `.disk` and `.all`.
    /// - Throws: ``ImageKernelError`` when the server cannot be reached in time.
    public func remove(key: String, type: ImageCacheType) async throws(ImageKernelError) {
        guard type.includesDisk else { return }
        let redisKey = naming.redisKey(for: key)
        _ = try await run(RedisCommand("DEL", redisKey), key: redisKey)
    }

    /// `.disk` when Redis holds an entry for `key` and `type` includes the disk tier; `.none`
    /// otherwise, also when the server cannot answer in time.
    public func contains(key: String, type: ImageCacheType) async -> ImageCacheType {
        guard type.includesDisk else { return .none }
        let redisKey = naming.redisKey(for: key)
        let reply = await router.run(RedisCommand("EXISTS", redisKey), key: redisKey, isRead: true)
        guard case .success(.integer(let count)) = reply, count > 0 else { return .none }
        return .disk
    }

    /// Deletes every key under ``Configuration/keyPrefix`` (`SCAN` then `DEL`, batch by batch;
    /// other keys on the server stay) for `.disk` and `.all`. In a cluster, every master is scanned
    /// and each key deleted on its own (keys of different slots cannot share a `DEL`).
    /// - Throws: ``ImageKernelError`` when the server (or a master) cannot be reached in time.
    public func clear(type: ImageCacheType) async throws(ImageKernelError) {
        guard type.includesDisk else { return }
        let targets = await router.scanTargets()
        guard !targets.isEmpty else {
            throw ImageKernelError(stage: .cache, plugin: Self.pluginName, code: .cannotConnect, message: "\(name): no node gave a slot map")
        }
        for target in targets { try await clear(scanning: target) }
    }

    private func clear(scanning target: ConnectionPool) async throws(ImageKernelError) {
        var cursor = Data("0".utf8)
        repeat {
            let scan = RedisCommand("SCAN", cursor, Data("MATCH".utf8), naming.pattern, Data("COUNT".utf8), Data("1000".utf8))
            let reply = try Self.reply(await target.run(scan), name: name)
            guard case .array(let parts) = reply, parts.count == 2, case .string(let next) = parts[0], case .array(let found) = parts[1] else {
                throw ImageKernelError(stage: .cache, plugin: Self.pluginName, code: .corruptData, message: "\(name): unexpected SCAN reply")
            }
            let keys = found.compactMap { if case .string(let key) = $0 { key } else { nil } }
            if configuration.isCluster {
                for key in keys { _ = try await run(RedisCommand("DEL", key), key: key) }
            } else if !keys.isEmpty {
                _ = try await run(RedisCommand("DEL", arguments: keys), key: keys[0])
            }
            cursor = next
        } while cursor != Data("0".utf8)
    }
}
