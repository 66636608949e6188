import Foundation
import ImageKernel

extension CacheConformance {
    func checkConcurrentWritersAndReaders(_ probe: CacheProbe) async throws(ConformanceFailure) {
        let (cache, context, tasks, operations) = (probe.cache, probe.context, concurrency, operationsPerTask)
        let validContains = Set([ImageCacheType.none] + tierTypes)
        let keys = (0..<16).map { "conformance/concurrent-\($0).png" }
        let outcomes = await withTaskGroup(of: (ConformanceFailure?, Set<Int>).self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var random = SeededRandom(seed: 0x5EED_0000 + UInt64(task))
                    var written = Set<Int>()
                    for operation in 0..<operations {
                        let index = Int.random(in: 0..<keys.count, using: &random)
                        let roll = Int.random(in: 0..<10, using: &random)
                        let input = "key \(CacheProbe.quote(keys[index])), task \(task) of \(tasks), operation \(operation)"
                        do {
                            if roll < 5 {
                                let sample = CacheSample(index: index, version: task * operations + operation + 1)
                                try await cache.store(sample.entry, forKey: keys[index], type: .all)
                                written.insert(index)
                            } else if roll < 9 {
                                guard let result = try await cache.query(key: keys[index], type: .all) else { continue }
                                guard let claimed = CacheSample.identify(result.entry), claimed.index == index else {
                                    return (context.failure(input, "a concurrent query returned an entry not stored under this key"), written)
                                }
                                if let problem = claimed.problem(with: result) {
                                    return (context.failure(input, "a concurrent query returned a torn entry: \(problem)"), written)
                                }
                            } else {
                                let answer = await cache.contains(key: keys[index], type: .all)
                                if !validContains.contains(answer) {
                                    return (context.failure(input, "contains answered \(answer) for a cache with tiers \(validContains)"), written)
                                }
                            }
                        } catch {
                            return (context.failure(input, "a concurrent operation threw", underlying: ImageKernelError.wrap(error, stage: .cache)), written)
                        }
                    }
                    return (nil, written)
                }
            }
            return await group.reduce(into: [(ConformanceFailure?, Set<Int>)]()) { $0.append($1) }
        }
        if let failure = outcomes.compactMap(\.0).first { throw failure }
        let written = outcomes.reduce(into: Set<Int>()) { $0.formUnion($1.1) }
        for index in written.sorted() {
            let input = CacheProbe.describe(keys[index], .all) + " after \(tasks) concurrent tasks"
            guard let result = try await probe.query(keys[index], type: .all) else {
                throw context.failure(input, "a key written during the concurrent run misses afterwards")
            }
            guard let claimed = CacheSample.identify(result.entry), claimed.index == index else {
                throw context.failure(input, "the entry is not one stored under this key")
            }
            if let problem = claimed.problem(with: result) { throw context.failure(input, problem) }
        }
    }

    func checkCancelledQueryThrows(_ probe: CacheProbe) async throws(ConformanceFailure) {
        let (key, sample) = ("conformance/cancelled.png", CacheSample(index: 50, version: 1))
        try await probe.store(sample, key: key, type: .all)
        let cache = probe.cache
        for type in [ImageCacheType.all] + tierTypes {
            let input = CacheProbe.describe(key, type) + " from an already cancelled task"
            let outcome = await Deadline.run(timeout) {
                try await Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    return try await cache.query(key: key, type: type)
                }.value
            }
            switch outcome {
            case .finished(let result):
                throw probe.context.failure(
                    input, "a cancelled query returned \(result == nil ? "nil" : "a hit") instead of throwing a cancellation error")
            case .threw(let error) where !error.isCancellation:
                throw probe.context.failure(
                    input, "a cancelled query threw something other than a cancellation error", underlying: ImageKernelError.wrap(error, stage: .cache))
            case .threw:
                continue
            case .timedOut:
                throw probe.context.failure(input, "a cancelled query did not stop within \(Deadline.seconds(timeout)) s")
            }
        }
        try await probe.expectHit(key, sample, type: .all, after: "cancelled queries")
    }
}
