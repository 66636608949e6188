import Foundation
import ImageKernel

/// An entry whose every field says which key index and version it was made for, so a reader can
/// tell a whole entry from a torn or misplaced one.
struct CacheSample {
    let index: Int
    let version: Int

    /// A 4×4 RGBA8 image, 300 bytes of data and an ETag, all derived from index and version.
    var entry: CacheEntry {
        var pixels = [UInt8](repeating: 0, count: 4 * 4 * 4)
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: index).littleEndian) { pixels.replaceSubrange(0..<4, with: $0) }
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: version).littleEndian) { pixels.replaceSubrange(4..<8, with: $0) }
        for offset in 8..<pixels.count { pixels[offset] = UInt8(truncatingIfNeeded: index &* 31 &+ version &* 7 &+ offset) }
        let image = try? Image(width: 4, height: 4, pixelFormat: .rgba8, pixels: pixels)
        var data = Data("IKCONF:\(index):\(version)|".utf8)
        while data.count < 300 { data.append(UInt8(truncatingIfNeeded: index &+ version &* 13 &+ data.count)) }
        return CacheEntry(image: image, data: data, validators: CacheValidators(etag: "\"\(index)-\(version)\""))
    }

    /// The sample an entry claims to be, read from its image or its data.
    static func identify(_ entry: CacheEntry) -> CacheSample? {
        if let image = entry.image, image.pixels.count >= 8 {
            let index = image.pixels[0..<4].withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
            let version = image.pixels[4..<8].withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
            return CacheSample(index: Int(index), version: Int(version))
        }
        if let data = entry.data, let header = String(data: data.prefix(40), encoding: .isoLatin1),
            let bar = header.firstIndex(of: "|")
        {
            let parts = header[..<bar].split(separator: ":")
            if parts.count == 3, parts[0] == "IKCONF", let index = Int(parts[1]), let version = Int(parts[2]) {
                return CacheSample(index: index, version: version)
            }
        }
        return nil
    }

    /// Why a hit does not hold this sample whole, or nil. A hit must hold the image or the data
    /// (the image when it came from memory, the data when it came from disk), and every field it
    /// holds must equal what was stored.
    func problem(with result: CacheQueryResult) -> String? {
        let expected = entry
        let got = result.entry
        if got.image == nil && got.data == nil { return "the hit holds neither an image nor data" }
        if result.source == .memory && got.image == nil { return "a memory hit holds no image" }
        if result.source == .disk && got.data == nil { return "a disk hit holds no data" }
        if let image = got.image, image != expected.image {
            let other = CacheSample.identify(CacheEntry(image: image))
            return "the image is not the one stored for this key" + (other.map { " (it belongs to key \($0.index), version \($0.version))" } ?? "")
        }
        if let data = got.data, data != expected.data {
            let other = CacheSample.identify(CacheEntry(data: data))
            return "the data (\(data.count) bytes) is not the one stored for this key" + (other.map { " (it belongs to key \($0.index), version \($0.version))" } ?? "")
        }
        if let validators = got.validators, validators != expected.validators {
            return "the validators \(validators) are not the ones stored"
        }
        return nil
    }
}

/// One cache under test, with every operation turned into a failure of the current case when it
/// throws or answers wrongly.
struct CacheProbe {
    let cache: any ImageCache
    let context: CaseContext

    func store(_ sample: CacheSample, key: String, type: ImageCacheType) async throws(ConformanceFailure) {
        do { try await cache.store(sample.entry, forKey: key, type: type) } catch {
            throw context.failure(Self.describe(key, type), "store threw", underlying: ImageKernelError.wrap(error, stage: .cache))
        }
    }

    func query(_ key: String, type: ImageCacheType) async throws(ConformanceFailure) -> CacheQueryResult? {
        do { return try await cache.query(key: key, type: type) } catch {
            throw context.failure(Self.describe(key, type), "query threw", underlying: ImageKernelError.wrap(error, stage: .cache))
        }
    }

    func remove(_ key: String, type: ImageCacheType) async throws(ConformanceFailure) {
        do { try await cache.remove(key: key, type: type) } catch {
            throw context.failure(Self.describe(key, type), "remove threw", underlying: ImageKernelError.wrap(error, stage: .cache))
        }
    }

    func clear(type: ImageCacheType) async throws(ConformanceFailure) {
        do { try await cache.clear(type: type) } catch {
            throw context.failure("clear(type: \(type))", "clear threw", underlying: ImageKernelError.wrap(error, stage: .cache))
        }
    }

    /// Queries `key` and demands a hit holding `sample`, from `source` when given.
    func expectHit(
        _ key: String, _ sample: CacheSample, type: ImageCacheType, source: ImageCacheType? = nil, after step: String
    ) async throws(ConformanceFailure) {
        let input = Self.describe(key, type) + " after \(step)"
        guard let result = try await query(key, type: type) else { throw context.failure(input, "the query missed") }
        if let source, result.source != source {
            throw context.failure(input, "the hit came from \(result.source), expected \(source)")
        }
        if result.source != .memory && result.source != .disk {
            throw context.failure(input, "a hit must come from memory or disk, not \(result.source)")
        }
        if let problem = sample.problem(with: result) { throw context.failure(input, problem) }
    }

    /// Queries `key` and demands a miss.
    func expectMiss(_ key: String, type: ImageCacheType, after step: String) async throws(ConformanceFailure) {
        if let result = try await query(key, type: type) {
            throw context.failure(Self.describe(key, type) + " after \(step)", "expected a miss, got a hit from \(result.source)")
        }
    }

    /// Demands that `contains` answers `expected`.
    func expectContains(_ key: String, type: ImageCacheType, _ expected: ImageCacheType, after step: String) async throws(ConformanceFailure) {
        let answer = await cache.contains(key: key, type: type)
        if answer != expected {
            throw context.failure(
                "contains(key: \(Self.quote(key)), type: \(type)) after \(step)", "answered \(answer), expected \(expected)")
        }
    }

    static func describe(_ key: String, _ type: ImageCacheType) -> String { "key \(quote(key)) with type \(type)" }

    /// A key for a report: quoted, long keys shortened.
    static func quote(_ key: String) -> String {
        let shown = key.count > 60 ? String(key.prefix(40)) + "…(\(key.count) characters)" : key
        return "\"" + shown.debugDescription.dropFirst().dropLast() + "\""
    }
}
