import Foundation
import ImageKernel

extension CacheConformance {
    func checkCacheTypesKeepTiersApart(_ probe: CacheProbe) async throws(ConformanceFailure) {
        // Each tier alone.
        for (offset, type) in tierTypes.enumerated() {
            let (key, sample) = ("conformance/only-\(type).png", CacheSample(index: 10 + offset, version: 1))
            try await probe.store(sample, key: key, type: type)
            try await probe.expectHit(key, sample, type: type, source: type, after: "store(.\(type))")
            for other in tierTypes where other != type {
                try await probe.expectMiss(key, type: other, after: "store(.\(type))")
                try await probe.expectContains(key, type: other, .none, after: "store(.\(type))")
            }
            try await probe.expectContains(key, type: .all, type, after: "store(.\(type))")
            try await probe.expectHit(key, sample, type: .all, source: type, after: "store(.\(type))")
        }
        // Tiers the cache lacks store nothing, answer nothing, and removing or clearing them
        // leaves the other tier alone.
        for (offset, type) in missingTierTypes.enumerated() {
            let key = "conformance/missing-\(type).png"
            try await probe.store(CacheSample(index: 20 + offset, version: 1), key: key, type: type)
            try await probe.expectMiss(key, type: .all, after: "store(.\(type)) to a tier the cache lacks")
            try await probe.expectContains(key, type: .all, .none, after: "store(.\(type)) to a tier the cache lacks")

            let (kept, sample) = ("conformance/kept-\(type).png", CacheSample(index: 30 + offset, version: 1))
            try await probe.store(sample, key: kept, type: .all)
            try await probe.expectMiss(kept, type: type, after: "store(.all), querying a tier the cache lacks")
            try await probe.remove(kept, type: type)
            try await probe.clear(type: type)
            try await probe.expectHit(kept, sample, type: .all, after: "remove(.\(type)) and clear(.\(type)) of a tier the cache lacks")
        }
        guard tiers == .memoryAndDisk else { return }
        // Removing or clearing one tier leaves the other.
        for (offset, (gone, stays)) in [(ImageCacheType.memory, ImageCacheType.disk), (.disk, .memory)].enumerated() {
            let sample = CacheSample(index: 40 + offset, version: 1)
            let removed = "conformance/remove-\(gone).png"
            try await probe.store(sample, key: removed, type: .all)
            try await probe.remove(removed, type: gone)
            try await probe.expectMiss(removed, type: gone, after: "store(.all) then remove(.\(gone))")
            try await probe.expectHit(removed, sample, type: stays, source: stays, after: "store(.all) then remove(.\(gone))")

            let cleared = "conformance/clear-\(gone).png"
            try await probe.store(sample, key: cleared, type: .all)
            try await probe.clear(type: gone)
            try await probe.expectMiss(cleared, type: gone, after: "store(.all) then clear(.\(gone))")
            try await probe.expectHit(cleared, sample, type: stays, source: stays, after: "store(.all) then clear(.\(gone))")
        }
    }
}
