import Foundation
import ImageKernel
import Testing

@Suite("Retries")
struct RetryTests {
    // MARK: The policy

    @Test func backoffIsCappedFullJitterAndNeverShorterThanTheSourcesHint() {
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: .milliseconds(100), maxDelay: .seconds(1), deadline: .seconds(30))
        let transient = FlakyLoader.unavailable()
        let ceiling: (Duration) -> Duration = { $0 }
        #expect(policy.delay(beforeRetry: 1, after: transient, elapsed: .zero, random: ceiling) == .milliseconds(100))
        #expect(policy.delay(beforeRetry: 3, after: transient, elapsed: .zero, random: ceiling) == .milliseconds(400))
        #expect(policy.delay(beforeRetry: 9, after: transient, elapsed: .zero, random: ceiling) == .seconds(1), "capped")
        #expect(policy.delay(beforeRetry: 1, after: transient, elapsed: .zero, random: { _ in .zero }) == .zero, "full jitter reaches zero")
        for _ in 0..<100 {
            let wait = policy.delay(beforeRetry: 4, after: transient, elapsed: .zero)
            #expect(wait.map { $0 >= .zero && $0 <= .milliseconds(800) } == true)
        }
        let hinted = FlakyLoader.unavailable(retryAfter: .seconds(7))
        #expect(policy.delay(beforeRetry: 1, after: hinted, elapsed: .zero) == .seconds(7), "the hint wins over a shorter backoff and the cap")
    }

    @Test func policyGivesUpOnPermanentErrorsCancellationSpentAttemptsAndTheDeadline() {
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .seconds(1), deadline: .seconds(5))
        let notFound = ImageKernelError(stage: .load, code: .httpStatus, message: "404", httpStatus: 404)
        #expect(policy.delay(beforeRetry: 1, after: notFound, elapsed: .zero) == nil)
        #expect(policy.delay(beforeRetry: 1, after: .cancelled(.load), elapsed: .zero) == nil)
        #expect(policy.delay(beforeRetry: 3, after: FlakyLoader.unavailable(), elapsed: .zero) == nil, "three attempts spent")
        #expect(policy.delay(beforeRetry: 1, after: FlakyLoader.unavailable(retryAfter: .seconds(6)), elapsed: .zero) == nil,
                "a hint past the deadline ends the retries")
        #expect(policy.delay(beforeRetry: 1, after: FlakyLoader.unavailable(), elapsed: .seconds(5)) == nil, "deadline passed")
        #expect(RetryPolicy.none.delay(beforeRetry: 1, after: FlakyLoader.unavailable(), elapsed: .zero) == nil)
    }

    // MARK: The manager

    @Test func retriesAreOffByDefaultForImageFor() async {
        let loader = FlakyLoader(period: 2)
        let manager = makeManager(flaky: loader)
        await #expect(throws: ImageKernelError.self) { try await manager.image(for: flakyURL("a")) }
        #expect(loader.requestCount == 1)
    }

    @Test func transientFailuresAreRetriedUntilTheLoadSucceeds() async throws {
        let loader = FlakyLoader(period: 3)
        let manager = makeManager(flaky: loader, retryPolicy: quickRetries)
        let events = EventLog<ImageLoadEvent>()
        let result = try await manager.image(for: flakyURL("a"), events: { events.append($0) })
        #expect(result.image != nil)
        #expect(loader.requestCount == 3)
        let retries = events.all.compactMap { if case .retrying(let attempt, _, _) = $0 { attempt } else { nil } }
        #expect(retries == [1, 2])
        // Progress restarts with each attempt: half, (retry), half, (retry), half, whole.
        let received = events.all.compactMap { event -> Int64? in if case .progress(let r, _) = event { r } else { nil } }
        #expect(received.count == 4 && received.last == received.first.map { $0 * 2 })
    }

    @Test func contextPolicyOverridesTheManagersAndRetryAfterIsHonoured() async throws {
        let loader = FlakyLoader(period: 2, error: FlakyLoader.unavailable(retryAfter: .milliseconds(300)))
        let manager = makeManager(flaky: loader)
        var context = ImageContext()
        context.retryPolicy = quickRetries
        let delays = EventLog<Duration>()
        _ = try await manager.image(for: flakyURL("a"), context: context) { event in
            if case .retrying(_, let delay, _) = event { delays.append(delay) }
        }
        #expect(delays.all.count == 1)
        #expect(delays.all.allSatisfy { $0 >= .milliseconds(300) }, "waited at least Retry-After, not the 2 ms cap: \(delays.all)")
    }

    @Test func permanentFailureIsNeverRetried() async {
        let loader = FlakyLoader(period: 5, error: ImageKernelError(stage: .load, code: .httpStatus, message: "404", httpStatus: 404))
        let manager = makeManager(flaky: loader, retryPolicy: quickRetries)
        await #expect(throws: ImageKernelError.self) { try await manager.image(for: flakyURL("gone")) }
        #expect(loader.requestCount == 1)
        #expect(manager.isFailed(flakyURL("gone")), "still blacklisted as permanent")
    }

    @Test func exhaustedRetriesFailWithTheLastTransientErrorAndAreNotBlacklisted() async {
        let loader = FlakyLoader(period: 100)
        let manager = makeManager(flaky: loader, retryPolicy: quickRetries)
        do {
            _ = try await manager.image(for: flakyURL("down"))
            Issue.record("expected a failure")
        } catch {
            #expect(error.httpStatus == 503)
        }
        #expect(loader.requestCount == quickRetries.maxAttempts)
        #expect(!manager.isFailed(flakyURL("down")))
    }

    @Test func retriedWorkStaysSharedByItsCallers() async throws {
        let loader = FlakyLoader(period: 3, delay: .milliseconds(5))
        let manager = makeManager(flaky: loader, retryPolicy: quickRetries)
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 {
                group.addTask { (try? await manager.image(for: flakyURL("herd"), options: .fromLoaderOnly)) != nil }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 20)
        #expect(results.allSatisfy { $0 })
        // Callers that arrive after the shared load finished start another (3 attempts each).
        #expect(loader.requestCount % 3 == 0 && loader.requestCount < 20 * 3, "\(loader.requestCount) attempts for 20 callers")
    }

    @Test func cancellingDuringBackoffCompletesOnceWithCancelledAndStopsTheRetry() async {
        let loader = FlakyLoader(period: 2, error: FlakyLoader.unavailable(retryAfter: .seconds(60)))
        let manager = makeManager(flaky: loader, retryPolicy: RetryPolicy(maxAttempts: 3, deadline: .seconds(600)))
        let waiting = Locked(false)
        let completions = EventLog<Result<ImageResult, ImageKernelError>>()
        let operation = manager.loadImage(with: flakyURL("slow"), events: { event in
            if case .retrying = event { waiting.withLock { $0 = true } }
        }, completion: { completions.append($0) })
        #expect(await eventually(.seconds(30)) { waiting.value }, "the load failed once and is waiting to retry")
        operation.cancel()
        #expect(await eventually(.seconds(30)) { manager.runningCount == 0 })
        #expect(completions.count == 1)
        if case .failure(let error) = completions.all.first { #expect(error.code == .cancelled) } else { Issue.record("not cancelled") }
        // The abandoned retry never runs: a new caller starts fresh work (attempt 2 succeeds).
        let again = try? await manager.image(for: flakyURL("slow"))
        #expect(again != nil)
        #expect(loader.requestCount == 2, "the cancelled backoff made no request")
        #expect(completions.count == 1, "still exactly once")
    }

    @Test func cancellingTheTaskDuringBackoffThrowsCancelled() async {
        let loader = FlakyLoader(period: 2, error: FlakyLoader.unavailable(retryAfter: .seconds(60)))
        let manager = makeManager(flaky: loader, retryPolicy: RetryPolicy(maxAttempts: 3, deadline: nil))
        let waiting = Locked(false)
        let task = Task { () -> ImageKernelError.Code? in
            do throws(ImageKernelError) {
                _ = try await manager.image(for: flakyURL("slow")) { if case .retrying = $0 { waiting.withLock { $0 = true } } }
                return nil
            } catch {
                return error.code
            }
        }
        #expect(await eventually(.seconds(30)) { waiting.value })
        task.cancel()
        let code = await task.value
        #expect(code == ImageKernelError.Code.cancelled)
    }

    // MARK: The prefetcher

    @Test func prefetcherRetriesByDefaultAndReportsRetries() async {
        let loader = FlakyLoader(period: 2)
        let prefetcher = ImagePrefetcher(manager: makeManager(flaky: loader))
        let retries = EventLog<Int>()
        let done = EventLog<(Int, Int)>()
        prefetcher.prefetch((0..<6).map { flakyURL("p\($0)") }, progress: { retries.append($0.retries) }, completion: { done.append(($0, $1)) })
        #expect(await eventually { done.count == 1 })
        #expect(done.all.first.map { $0 == (6, 0) } == true, "every URL delivered: \(done.all)")
        #expect(retries.all == Array(repeating: 1, count: 6))
    }

    @Test func prefetcherStreamsASequenceTakingURLsOnlyAsSlotsFree() async {
        let loader = FlakyLoader(period: 1, delay: .milliseconds(1))
        let taken = Locked(0)
        let urls = CountingSequence(count: 500, taken: taken)
        let prefetcher = ImagePrefetcher(manager: makeManager(flaky: loader), maxConcurrentPrefetchCount: 4)
        let maxAhead = Locked(0)
        let done = EventLog<(Int, Int)>()
        prefetcher.prefetch(contentsOf: urls, progress: { progress in
            let ahead = taken.value - progress.finished
            maxAhead.withLock { $0 = max($0, ahead) }
        }, completion: { done.append(($0, $1)) })
        #expect(await eventually { done.count == 1 })
        #expect(done.all.first.map { $0 == (500, 0) } == true)
        #expect(maxAhead.value <= 4, "never more URLs read than in flight: \(maxAhead.value)")
    }

    @Test func emptyStreamedSequenceCompletesWithZeroCounts() async {
        let prefetcher = ImagePrefetcher(manager: makeManager(flaky: FlakyLoader(period: 1)))
        let done = EventLog<(Int, Int)>()
        prefetcher.prefetch(contentsOf: CountingSequence(count: 0, taken: Locked(0)), completion: { done.append(($0, $1)) })
        #expect(await eventually { done.count == 1 })
        #expect(done.all.first.map { $0 == (0, 0) } == true)
    }
}

/// `count` flaky URLs, made one at a time as they are read; counts how many were read.
struct CountingSequence: Sequence, Sendable {
    let count: Int
    let taken: Locked<Int>

    func makeIterator() -> AnyIterator<URL?> {
        var index = 0
        return AnyIterator {
            guard index < count else { return nil }
            defer { index += 1 }
            taken.withLock { $0 += 1 }
            return flakyURL("s\(index)")
        }
    }
}
