import Foundation
@testable import ImageKernel
import Testing

/// DESIGN.md rule 9, with Nuke's coalescing cases as the checklist: concurrent loads that would
/// produce the same result share one cache query, load, decode, transform and store.
@Suite("Manager coalescing (rule 9)")
struct CoalescingTests {
    private func setUp(_ hosts: [String] = ["a"], cache: CountingCache = CountingCache()) -> (ImageManager, GatedLoader, RawCoder, CountingCache) {
        let loader = GatedLoader()
        for (i, host) in hosts.enumerated() { loader.serve(host, RawCoder.data(width: 40, height: 30, seed: UInt8(i))) }
        let coder = RawCoder()
        let manager = ImageManager(configuration: .init(cache: cache, loaders: LoaderRegistry([loader]), coders: CoderRegistry([coder])))
        return (manager, loader, coder, cache)
    }

    private func thumbnail(_ side: Int) -> ImageContext {
        var context = ImageContext()
        context.thumbnailPixelSize = PixelSize(width: side, height: side)
        return context
    }

    @Test func concurrentLoadsOfOneURLShareOneQueryLoadDecodeAndStore() async throws {
        let (manager, loader, coder, cache) = setUp()
        let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 { group.addTask { try await manager.image(for: gateURL("a")).image?.width ?? 0 } }
            #expect(await eventually { loader.started.value == 1 && manager.runningCount == 50 && manager.resultSubscriberCount == 50 })
            loader.open()
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(sizes == Array(repeating: 40, count: 50))
        #expect(loader.requestCount == 1)
        #expect(coder.decodeCount.value == 1, "one decode for fifty callers")
        #expect(cache.tierQueries("gate://a/image.raw") == .init(memory: 1, disk: 1), "one shared cache query per tier")
        #expect(cache.stores.value.count == 1, "one store")
    }

    @Test func operationsAndAsyncCallersShareTheSameWork() async throws {
        let (manager, loader, coder, _) = setUp()
        let completions = Locked(0)
        for _ in 0..<5 {
            manager.loadImage(with: gateURL("a")) { result in
                if case .success(let r) = result, r.image?.width == 40 { completions.withLock { $0 += 1 } }
            }
        }
        let asyncCaller = Task { try await manager.image(for: gateURL("a")) }
        #expect(await eventually { manager.runningCount == 6 && loader.started.value == 1 && manager.resultSubscriberCount == 6 })
        loader.open()
        #expect(try await asyncCaller.value.image?.width == 40)
        #expect(await eventually { completions.value == 5 })
        #expect(loader.requestCount == 1)
        #expect(coder.decodeCount.value == 1)
    }

    @Test func eachCallerGetsItsOwnProgressAndExactlyOneCompletion() async throws {
        let (manager, loader, _, _) = setUp()
        let logs = (0..<3).map { _ in EventLog<ImageLoadEvent>() }
        let completions = Locked([0, 0, 0])
        for i in 0..<3 {
            manager.loadImage(with: gateURL("a"), events: { logs[i].append($0) }) { _ in completions.withLock { $0[i] += 1 } }
        }
        #expect(await eventually { manager.runningCount == 3 && loader.started.value == 1 && manager.resultSubscriberCount == 3 })
        loader.open()
        #expect(await eventually { completions.value == [1, 1, 1] })
        try await Task.sleep(for: .milliseconds(20))
        #expect(completions.value == [1, 1, 1], "exactly once")
        let size = Int64(RawCoder.data(width: 40, height: 30).count)
        for log in logs {
            let progress = log.all.compactMap { if case .progress(let r, let e) = $0 { (r, e) } else { nil } }
            #expect(progress.map(\.0) == [size / 2, size] && progress.allSatisfy { $0.1 == size }, "every caller sees the shared progress")
        }
    }

    @Test func cancellingOneCallerDetachesItAndTheOthersGetTheImage() async throws {
        let (manager, loader, _, _) = setUp()
        let first = Task { try await manager.image(for: gateURL("a")) }
        let second = Task { try await manager.image(for: gateURL("a")) }
        let results = Locked<[Result<ImageResult, ImageKernelError>]>([])
        let operation = manager.loadImage(with: gateURL("a")) { result in results.withLock { $0.append(result) } }
        #expect(await eventually { manager.runningCount == 3 && loader.started.value == 1 && manager.resultSubscriberCount == 3 })
        first.cancel()
        operation.cancel()
        do {
            _ = try await first.value
            Issue.record("a cancelled caller got an image")
        } catch let error as ImageKernelError {
            #expect(error.code == .cancelled)
        }
        loader.open()
        #expect(try await second.value.image?.width == 40)
        #expect(loader.cancellations.value == 0, "the shared load went on for the caller left")
        #expect(results.withLock { $0.count } == 1)
        if case .failure(let error)? = results.withLock({ $0.first }) { #expect(error.code == .cancelled) } else { Issue.record("operation not cancelled") }
    }

    @Test func cancellingTheLastCallerCancelsTheLoadAndANewCallerStartsAgain() async throws {
        let (manager, loader, _, _) = setUp()
        let callers = (0..<3).map { _ in Task { try await manager.image(for: gateURL("a")) } }
        #expect(await eventually { manager.runningCount == 3 && loader.started.value == 1 && manager.resultSubscriberCount == 3 })
        for caller in callers { caller.cancel() }
        for caller in callers { await #expect(throws: ImageKernelError.self) { try await caller.value } }
        loader.open()
        #expect(await eventually { loader.cancellations.value == 1 }, "the shared load was cancelled")
        #expect(!manager.isFailed(gateURL("a")), "a cancellation is never blacklisted")
        let again = try await manager.image(for: gateURL("a"))
        #expect(again.image?.width == 40)
        #expect(loader.requestCount == 2, "a caller after the cancellation starts new work")
    }

    @Test func cancellingEveryCallerCancelsTheSharedDiskQuery() async throws {
        let cache = CountingCache(MemoryCache(), diskDelay: .seconds(30))
        let (manager, loader, _, _) = setUp(cache: cache)
        let callers = (0..<4).map { _ in Task { try await manager.image(for: gateURL("a")) } }
        #expect(await eventually { cache.queryCount(.disk) == 1 && manager.runningCount == 4 })
        for caller in callers { caller.cancel() }
        for caller in callers { await #expect(throws: ImageKernelError.self) { try await caller.value } }
        #expect(await eventually { cache.cancelledQueries.value == 1 }, "the one query was cancelled")
        #expect(cache.queryCount(.disk) == 1)
        #expect(loader.requestCount == 0)
    }

    @Test func cancelAllCancelsAsyncCallersToo() async throws {
        let (manager, loader, _, _) = setUp()
        let callers = (0..<3).map { _ in Task { try await manager.image(for: gateURL("a")) } }
        #expect(await eventually { manager.runningCount == 3 && loader.started.value == 1 && manager.resultSubscriberCount == 3 })
        #expect(manager.isRunning)
        manager.cancelAll()
        for caller in callers {
            do {
                _ = try await caller.value
                Issue.record("image after cancelAll")
            } catch let error as ImageKernelError {
                #expect(error.code == .cancelled)
            }
        }
        #expect(manager.runningCount == 0)
        loader.open()
        #expect(await eventually { loader.cancellations.value == 1 })
    }

    @Test func sharedWorkRunsAtTheHighestPriorityOfItsCallers() async throws {
        let (manager, loader, _, _) = setUp()
        let low = Task { try await manager.image(for: gateURL("a"), options: .lowPriority) }
        #expect(await eventually { loader.started.value == 1 })
        #expect(loader.options.value.first?.contains(.lowPriority) == true)
        let handle = try #require(loader.priorities.value.first)
        #expect(handle.value == .low)
        let changes = Locked<[LoadPriority]>([])
        handle.observe { priority in changes.withLock { $0.append(priority) } }

        let high = Task { try await manager.image(for: gateURL("a"), options: .highPriority) }
        #expect(await eventually { handle.value == .high }, "a higher caller raises the shared load")
        high.cancel()
        _ = try? await high.value
        #expect(await eventually { handle.value == .low }, "and its leaving lowers it again")
        let normal = Task { try await manager.image(for: gateURL("a")) }
        #expect(await eventually { handle.value == .normal })
        loader.open()
        _ = try await low.value
        _ = try await normal.value
        #expect(changes.value == [.high, .low, .normal])
        #expect(loader.requestCount == 1)
    }

    @Test func aFailureReachesEveryCaller() async throws {
        let (manager, loader, _, _) = setUp()
        loader.failAll(with: ImageKernelError(stage: .load, plugin: "GatedLoader", code: .httpStatus, message: "404", httpStatus: 404))
        let callers = (0..<5).map { _ in Task { try await manager.image(for: gateURL("a")) } }
        #expect(await eventually { manager.runningCount == 5 && loader.started.value == 1 && manager.resultSubscriberCount == 5 })
        loader.open()
        for caller in callers {
            do {
                _ = try await caller.value
                Issue.record("a caller got an image")
            } catch let error as ImageKernelError {
                #expect(error.httpStatus == 404)
            }
        }
        #expect(loader.requestCount == 1)
    }

    @Test func variantsShareTheDownloadAndDecodeOncePerVariant() async throws {
        let (manager, loader, coder, _) = setUp()
        var flipped = ImageContext()
        flipped.transformer = ClosureTransformer(key: "same") { $0 }
        let contexts = [ImageContext(), thumbnail(10), thumbnail(20), flipped]
        let widths = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for (index, context) in contexts.enumerated() {
                for _ in 0..<3 {
                    group.addTask { (index, try await manager.image(for: gateURL("a"), context: context).image?.width ?? 0) }
                }
            }
            // Four variants share one download; the gate opens once all four have joined it.
            #expect(await eventually { manager.runningCount == 12 && loader.started.value == 1 && manager.downloadSubscriberCount == 4 && manager.resultSubscriberCount == 12 })
            loader.open()
            return try await group.reduce(into: [Int: Set<Int>]()) { $0[$1.0, default: []].insert($1.1) }
        }
        #expect(widths == [0: [40], 1: [10], 2: [20], 3: [40]], "each caller gets its own variant")
        #expect(loader.requestCount == 1, "one download for every variant")
        #expect(coder.decodeCount.value == 4, "one decode per variant")
    }

    @Test func diskQueriesForOneKeyAreShared() async throws {
        // The original's disk query is held until both variants have looked up their final keys
        // (then 200 ms more), so the second variant finds it in flight however the machine
        // schedules them.
        let cache = CountingCache(MemoryCache(), diskDelay: .milliseconds(200), holdDiskQueriesOf: "gate://a/image.raw", until: 2)
        let (manager, loader, _, _) = setUp(cache: cache)
        let contexts = [thumbnail(10), thumbnail(20), thumbnail(10)]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for context in contexts { group.addTask { _ = try await manager.image(for: gateURL("a"), context: context) } }
            // Both variants leave the shared query together; the gate stays shut until both have
            // joined the download.
            #expect(await eventually { loader.started.value == 1 && manager.downloadSubscriberCount == 2 && manager.resultSubscriberCount == 3 })
            loader.open()
            try await group.waitForAll()
        }
        // Two variants: one query per tier of each final key, then one shared query of the original key.
        for side in [10, 20] {
            let key = try #require(manager.cacheKey(for: gateURL("a"), context: thumbnail(side)))
            #expect(cache.tierQueries(key) == .init(memory: 1, disk: 1), "one query per tier of \(key)")
        }
        #expect(cache.tierQueries("gate://a/image.raw") == .init(memory: 0, disk: 1), "one query of the original for both variants")
        #expect(loader.requestCount == 1)
    }

    @Test func callersWithResultShapingOptionsApartShareOnlyTheDownload() async throws {
        let (manager, loader, coder, _) = setUp()
        let plain = Task { try await manager.image(for: gateURL("a")) }
        let memoryOnly = Task { try await manager.image(for: gateURL("a"), options: .cacheMemoryOnly) }
        #expect(await eventually { manager.runningCount == 2 && loader.started.value == 1 && manager.downloadSubscriberCount == 2 && manager.resultSubscriberCount == 2 })
        loader.open()
        _ = try await plain.value
        _ = try await memoryOnly.value
        #expect(loader.requestCount == 1)
        #expect(coder.decodeCount.value == 2)
    }

    @Test func aLoadAfterTheSharedWorkFinishedStartsItsOwn() async throws {
        let (manager, loader, _, _) = setUp()
        loader.open()
        _ = try await manager.image(for: gateURL("a"), options: .fromLoaderOnly)
        _ = try await manager.image(for: gateURL("a"), options: .fromLoaderOnly)
        #expect(loader.requestCount == 2)
    }

    @Test func uncachedLoadsWithDifferentTransformersDoNotShareAResult() async throws {
        let loader = GatedLoader()
        loader.serve("a", RawCoder.data(width: 40, height: 30))
        let coder = RawCoder()
        let manager = ImageManager(configuration: .init(
            loaders: LoaderRegistry([loader]), coders: CoderRegistry([coder]),
            cacheKeyFilter: ClosureCacheKeyFilter { _ in nil }))
        var small = ImageContext()
        small.transformer = ClosureTransformer(key: "small") { RawCoder.shrink($0, toFit: PixelSize(width: 4, height: 4)) }
        let plain = Task { try await manager.image(for: gateURL("a")) }
        let shrunk = Task { [small] in try await manager.image(for: gateURL("a"), context: small) }
        #expect(await eventually { manager.runningCount == 2 && loader.started.value == 1 && manager.downloadSubscriberCount == 2 && manager.resultSubscriberCount == 2 })
        loader.open()
        #expect(try await plain.value.image?.width == 40)
        #expect(try await shrunk.value.image?.width == 4)
        #expect(loader.requestCount == 1, "they still share the download")
    }
}
