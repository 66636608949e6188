import Foundation
import ImageKernel
import Testing
@testable import Transformers

/// The shared filter weights: a hit is the very axis a miss made, keys tell apart everything the
/// weights depend on, the budget holds, and cached resizes give the bytes of uncached ones.
@Suite("Filter axis cache")
struct FilterAxisCacheTests {
    @Test func aHitIsTheAxisTheMissMade() {
        let cache = FilterAxisCache(budget: 1 << 20)
        let first = cache.resampling(400, from: 0, to: 400, outputCount: 300, filter: .lanczos3)
        let again = cache.resampling(400, from: 0, to: 400, outputCount: 300, filter: .lanczos3)
        #expect(first === again)
        #expect(cache.usage.count == 1)
        // Each thing the weights depend on makes another axis.
        let others = [
            cache.resampling(401, from: 0, to: 400, outputCount: 300, filter: .lanczos3),
            cache.resampling(400, from: 0.5, to: 400, outputCount: 300, filter: .lanczos3),
            cache.resampling(400, from: 0, to: 399.75, outputCount: 300, filter: .lanczos3),
            cache.resampling(400, from: 0, to: 400, outputCount: 299, filter: .lanczos3),
            cache.resampling(400, from: 0, to: 400, outputCount: 300, filter: .bicubic),
            cache.gaussian(2, count: 400), cache.gaussian(2.5, count: 400), cache.gaussian(2, count: 401),
        ]
        for (i, axis) in others.enumerated() {
            #expect(axis !== first, "key \(i) hit the first axis")
        }
        #expect(cache.usage.count == 9)
        // The weights are the ones a fresh computation gives.
        let fresh = FilterWeights(resampling: 400, from: 0.5, to: 400, outputCount: 300, filter: .lanczos3)
        #expect(others[1].weights.weights == fresh.weights && others[1].weights.starts == fresh.starts && others[1].weights.counts == fresh.counts)
    }

    @Test func theBudgetHoldsAndTheLeastRecentlyUsedGoFirst() {
        let probe = FilterAxis(FilterWeights(resampling: 1000, from: 0, to: 1000, outputCount: 500, filter: .lanczos3))
        let cache = FilterAxisCache(budget: probe.estimatedBytes * 8 + probe.estimatedBytes / 2)
        let kept = cache.resampling(1000, from: 0, to: 1000, outputCount: 500, filter: .lanczos3)
        for n in 0..<20 {
            _ = cache.resampling(1000, from: 0, to: 1000, outputCount: 500, filter: .lanczos3)  // keeps it recent
            _ = cache.resampling(1000 + n, from: 0, to: 1000, outputCount: 500, filter: .lanczos3)
            #expect(cache.usage.bytes <= cache.budget)
        }
        #expect(cache.resampling(1000, from: 0, to: 1000, outputCount: 500, filter: .lanczos3) === kept)
        #expect(cache.resampling(1001, from: 0, to: 1000, outputCount: 500, filter: .lanczos3).weights.outputCount == 500)
        // An axis over an eighth of the budget is made, not kept.
        let before = cache.usage
        let huge = cache.resampling(100, from: 0, to: 100, outputCount: 20_000, filter: .lanczos3)
        #expect(huge.weights.outputCount == 20_000)
        #expect(cache.usage.count == before.count)
        #expect(cache.resampling(100, from: 0, to: 100, outputCount: 20_000, filter: .lanczos3) !== huge)
    }

    @Test func fixedPointFormsAreMadeOncePerOrigin() {
        let axis = FilterAxis(FilterWeights(resampling: 400, from: 10.5, to: 380, outputCount: 300, filter: .lanczos3))
        let a = axis.fixedPoint(origin: 10, paired: true)
        let b = axis.fixedPoint(origin: 10, paired: true)
        #expect(a.taps === b.taps)
        #expect(a.pairsConsidered && b.pairsConsidered)
        let unpaired = axis.fixedPoint(origin: 0, paired: false)
        #expect(unpaired.taps !== a.taps)
        #expect(!unpaired.pairsConsidered && unpaired.pairs == nil)
    }

    @Test func concurrentResizesShareAxesAndGiveTheSameBytes() throws {
        let image = try noiseImage(width: 211, height: 157, format: .rgba8, seed: 5)
        let specs = ["resize:fill:80:60:lanczos3", "resize:fit:100:100:bicubic", "blur:1.5", "resize:fill:33:90:bilinear:no"]
        let expected = try specs.map { spec in
            try TransformSpec(parsing: spec).transform(image).pixels
        }
        let mismatches = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            let index = i % specs.count
            let result = try? TransformSpec(parsing: specs[index]).transform(image).pixels
            if result != expected[index] { mismatches.withLock { $0 += 1 } }
        }
        #expect(mismatches.value == 0)
    }
}

/// The scoped thread limit caps every transform in its scope and only there.
@Suite("Scoped thread limit")
struct TransformThreadsTests {
    @Test func theScopeCapsTheThreadsAndTheBytesStayTheSame() throws {
        let work = Parallel.minimumWork * 4
        #expect(Parallel.threads(rows: 100, work: work, limit: 2) == 2)
        TransformThreads.$limit.withValue(1) {
            #expect(Parallel.threads(rows: 100, work: work, limit: 2) == 1)
            #expect(Parallel.threads(rows: 100, work: work, limit: 0) == 1)
        }
        TransformThreads.$limit.withValue(nil) {
            #expect(Parallel.threads(rows: 100, work: work, limit: 2) == 2)
        }
        #expect(Parallel.threads(rows: 100, work: work, limit: 2) == 2)
        // RGB takes the direct passes; gray the transposed ones (both split across threads here).
        for format in [PixelFormat.rgb8, .gray8] {
            // Large enough for the work estimate to ask for a second thread in either layout.
            let image = try noiseImage(width: format == .gray8 ? 1800 : 900, height: format == .gray8 ? 1400 : 700, format: format, seed: 3)
            #expect(Parallel.threads(rows: 300, work: image.width * image.height * 4 / SeparableFilter.fixedPointOpsPerWorkUnit, limit: 0) > 1)
            for text in ["resize:fill:500:300:lanczos3", "resize:fit:600:600:bilinear"] {
                let spec = try TransformSpec(parsing: text)
                let free = try spec.transform(image)
                let single = try TransformThreads.$limit.withValue(1) { try spec.transform(image) }
                #expect(free.pixels == single.pixels, "\(format) \(text)")
            }
        }
    }
}
