import Foundation
import ImageKernel

extension CacheConformance {
    func checkStoreThenQueryHits(_ probe: CacheProbe) async throws(ConformanceFailure) {
        let (key, sample) = ("conformance/a.png", CacheSample(index: 0, version: 1))
        try await probe.store(sample, key: key, type: .all)
        try await probe.expectHit(key, sample, type: .all, source: firstTier, after: "store(.all)")
        for type in tierTypes {
            try await probe.expectHit(key, sample, type: type, source: type, after: "store(.all)")
        }
    }

    func checkMissReturnsNil(_ probe: CacheProbe) async throws(ConformanceFailure) {
        let missing = "conformance/never-stored.png"
        for type in ImageCacheType.allCases {
            try await probe.expectMiss(missing, type: type, after: "nothing was stored")
        }
        try await probe.store(CacheSample(index: 1, version: 1), key: "conformance/other.png", type: .all)
        for type in ImageCacheType.allCases {
            try await probe.expectMiss(missing, type: type, after: "storing another key")
        }
    }

    func checkStoreReplacesEntry(_ probe: CacheProbe) async throws(ConformanceFailure) {
        let key = "conformance/replaced.png"
        let (first, second) = (CacheSample(index: 2, version: 1), CacheSample(index: 2, version: 2))
        try await probe.store(first, key: key, type: .all)
        try await probe.store(second, key: key, type: .all)
        try await probe.expectHit(key, second, type: .all, after: "storing a second entry under the key")
        for type in tierTypes {
            try await probe.expectHit(key, second, type: type, source: type, after: "storing a second entry under the key")
        }
    }

    func checkRemoveDeletesOnlyThatKey(_ probe: CacheProbe) async throws(ConformanceFailure) {
        let (removed, kept) = ("conformance/removed.png", "conformance/kept.png")
        let keptSample = CacheSample(index: 4, version: 1)
        try await probe.store(CacheSample(index: 3, version: 1), key: removed, type: .all)
        try await probe.store(keptSample, key: kept, type: .all)
        try await probe.remove(removed, type: .all)
        for type in [ImageCacheType.all] + tierTypes {
            try await probe.expectMiss(removed, type: type, after: "remove(.all)")
        }
        try await probe.expectContains(removed, type: .all, .none, after: "remove(.all)")
        try await probe.expectHit(kept, keptSample, type: .all, after: "removing another key")
        try await probe.remove("conformance/never-stored.png", type: .all)
    }

    func checkClearEmptiesEveryKey(_ probe: CacheProbe) async throws(ConformanceFailure) {
        let keys = (0..<5).map { "conformance/clear-\($0).png" }
        for (index, key) in keys.enumerated() { try await probe.store(CacheSample(index: index, version: 1), key: key, type: .all) }
        try await probe.clear(type: .all)
        for key in keys {
            for type in [ImageCacheType.all] + tierTypes { try await probe.expectMiss(key, type: type, after: "clear(.all)") }
            try await probe.expectContains(key, type: .all, .none, after: "clear(.all)")
        }
        let again = CacheSample(index: 0, version: 2)
        try await probe.store(again, key: keys[0], type: .all)
        try await probe.expectHit(keys[0], again, type: .all, after: "clear(.all) and a new store")
    }

    func checkContainsReportsTier(_ probe: CacheProbe) async throws(ConformanceFailure) {
        let key = "conformance/contained.png"
        try await probe.store(CacheSample(index: 5, version: 1), key: key, type: .all)
        try await probe.expectContains(key, type: .all, firstTier, after: "store(.all)")
        for type in tierTypes { try await probe.expectContains(key, type: type, type, after: "store(.all)") }
        for type in missingTierTypes { try await probe.expectContains(key, type: type, .none, after: "store(.all)") }
        try await probe.expectContains("conformance/never-stored.png", type: .all, .none, after: "storing another key")
    }

    func checkNoneTypeTouchesNothing(_ probe: CacheProbe) async throws(ConformanceFailure) {
        let (ignored, kept) = ("conformance/none-store.png", "conformance/none-kept.png")
        try await probe.store(CacheSample(index: 6, version: 1), key: ignored, type: .none)
        try await probe.expectMiss(ignored, type: .all, after: "store(.none)")
        try await probe.expectContains(ignored, type: .all, .none, after: "store(.none)")

        let sample = CacheSample(index: 7, version: 1)
        try await probe.store(sample, key: kept, type: .all)
        try await probe.expectMiss(kept, type: .none, after: "store(.all)")
        try await probe.expectContains(kept, type: .none, .none, after: "store(.all)")
        try await probe.remove(kept, type: .none)
        try await probe.expectHit(kept, sample, type: .all, after: "remove(.none)")
        try await probe.clear(type: .none)
        try await probe.expectHit(kept, sample, type: .all, after: "clear(.none)")
    }

    /// Keys that a file-backed cache might mistake for paths, plus other awkward strings.
    static let awkwardKeys: [String] = [
        "", "/", ".", "..", "../../etc/passwd", "a/b", "a_b", "a%2Fb", "a\\b", "a\u{0}b", "a\nb", " leading space",
        "ключ-🙂.png", "https://example.com/a.png?x=1&y=2#frag", "CON", String(repeating: "k", count: 2000),
    ]

    func checkAnyStringIsAKey(_ probe: CacheProbe) async throws(ConformanceFailure) {
        let keys = Self.awkwardKeys
        for (index, key) in keys.enumerated() { try await probe.store(CacheSample(index: index, version: 1), key: key, type: .all) }
        for (index, key) in keys.enumerated() {
            for type in [ImageCacheType.all] + tierTypes {
                try await probe.expectHit(key, CacheSample(index: index, version: 1), type: type, after: "storing \(keys.count) awkward keys")
            }
        }
        try await probe.remove(keys[0], type: .all)
        try await probe.expectMiss(keys[0], type: .all, after: "removing it")
        for (index, key) in keys.enumerated().dropFirst() {
            try await probe.expectHit(key, CacheSample(index: index, version: 1), type: .all, after: "removing the empty key")
        }
    }
}
