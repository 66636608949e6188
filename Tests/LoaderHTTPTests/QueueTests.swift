import Foundation
import ImageKernelTestSupport
import ImageKernel
import LoaderHTTP
import Testing

/// Order tests run with one slot and requests held at gates, so the server's arrival order is
/// the order in which the loader started transfers.
@Suite struct QueueTests {
    /// The arrival order of `/gate/<gate>/<name>` requests, as the numbers in the gate names.
    private func arrivalOrder(_ server: HTTPTestServer) -> [Int] {
        server.requests.compactMap { request in
            let parts = request.path.split(separator: "/")
            return parts.first == "gate" ? Int(parts[1].dropFirst(1)) : nil
        }
    }

    /// Queues loads one by one, waiting until each is in the loader's queue, so the order of
    /// enqueueing is certain.
    private func enqueue(_ numbers: ClosedRange<Int>, _ fixture: Fixture, options: (Int) -> LoaderOptions = { _ in [] }) async -> [Int: Task<LoadResult, any Error>] {
        var tasks: [Int: Task<LoadResult, any Error>] = [:]
        for number in numbers {
            let before = await fixture.loader.status().tokens
            tasks[number] = fixture.start("/gate/g\(number)/png", options: options(number))
            _ = await fixture.waitForStatus { $0.tokens == before + 1 }
        }
        return tasks
    }

    @Test func lifoOrderMatchesSDWebImage() async throws {
        let fixture = try Fixture { $0.maxConcurrentDownloads = 1; $0.executionOrder = .lifo }
        defer { fixture.stop() }
        var tasks = await enqueue(1...7, fixture)
        #expect(await eventually { arrivalOrder(fixture.server) == [1] })
        fixture.server.openGate("g1")
        #expect(await eventually { arrivalOrder(fixture.server) == [1, 7] })
        tasks.merge(await enqueue(8...14, fixture)) { $1 }
        for number in 1...14 { fixture.server.openGate("g\(number)") }
        for task in tasks.values { _ = try await task.value }
        #expect(arrivalOrder(fixture.server) == [1, 7, 14, 13, 12, 11, 10, 9, 8, 6, 5, 4, 3, 2])
    }

    @Test func fifoStartsInArrivalOrder() async throws {
        let fixture = try Fixture { $0.maxConcurrentDownloads = 1 }
        defer { fixture.stop() }
        let tasks = await enqueue(1...6, fixture)
        for number in 1...6 { fixture.server.openGate("g\(number)") }
        for task in tasks.values { _ = try await task.value }
        #expect(arrivalOrder(fixture.server) == [1, 2, 3, 4, 5, 6])
    }

    @Test func highPriorityJumpsTheQueueAndLowPriorityWaits() async throws {
        let fixture = try Fixture { $0.maxConcurrentDownloads = 1 }
        defer { fixture.stop() }
        let tasks = await enqueue(1...5, fixture) { number in
            number == 2 ? .lowPriority : number == 5 ? .highPriority : []
        }
        #expect(await eventually { arrivalOrder(fixture.server) == [1] })
        for number in 1...5 { fixture.server.openGate("g\(number)") }
        for task in tasks.values { _ = try await task.value }
        #expect(arrivalOrder(fixture.server) == [1, 5, 3, 4, 2])
    }

    @Test func aHighPriorityCallerJoiningAQueuedTransferMovesItForward() async throws {
        let fixture = try Fixture { $0.maxConcurrentDownloads = 1 }
        defer { fixture.stop() }
        var tasks = Array(await enqueue(1...3, fixture).values)
        tasks.append(fixture.start("/gate/g3/png", options: .highPriority))
        #expect(await fixture.waitForStatus { $0.tokens == 4 })
        for number in 1...3 { fixture.server.openGate("g\(number)") }
        for task in tasks { _ = try await task.value }
        #expect(arrivalOrder(fixture.server) == [1, 3, 2])
    }

    @Test func maxConcurrentDownloadsLimitsRunningTransfers() async throws {
        let fixture = try Fixture { $0.maxConcurrentDownloads = 2 }
        defer { fixture.stop() }
        let tasks = (1...5).map { fixture.start("/gate/g\($0)/png") }
        #expect(await fixture.waitForStatus { $0.runningTransfers == 2 && $0.queuedTransfers == 3 })
        #expect(await eventually { arrivalOrder(fixture.server).count == 2 })
        for number in 1...5 { fixture.server.openGate("g\(number)") }
        for task in tasks { _ = try await task.value }
        #expect(arrivalOrder(fixture.server).count == 5)
    }

    @Test func cancellingAQueuedLoadMeansItNeverStarts() async throws {
        let fixture = try Fixture { $0.maxConcurrentDownloads = 1 }
        defer { fixture.stop() }
        let tasks = await enqueue(1...3, fixture)
        tasks[2]?.cancel()
        #expect(await loadError { try await tasks[2]!.value }?.code == .cancelled)
        #expect(await fixture.waitForStatus { $0.queuedTransfers == 1 })
        for number in 1...3 { fixture.server.openGate("g\(number)") }
        _ = try await tasks[1]!.value
        _ = try await tasks[3]!.value
        #expect(arrivalOrder(fixture.server) == [1, 3])
    }

    @Test func cancelAllDownloadsReturnsOnlyWhenEveryLoadIsCancelled() async throws {
        let fixture = try Fixture { $0.maxConcurrentDownloads = 2 }
        defer { fixture.stop() }
        let outcomes = Collector<ImageKernelError.Code?>()
        let tasks = (1...5).map { number in
            Task {
                let error = await loadError { try await fixture.load("/gate/c\(number)/png") }
                outcomes.append(error?.code)
            }
        }
        #expect(await fixture.waitForStatus { $0.tokens == 5 && $0.runningTransfers == 2 && $0.queuedTransfers == 3 })
        let statusAfterCancel = await fixture.loader.cancelAllDownloads()
        // Done when it returns: nothing queued, running or waiting, without polling.
        #expect(statusAfterCancel == .idle)
        #expect(await fixture.loader.status() == .idle)
        for task in tasks { await task.value }
        #expect(outcomes.values.count == 5)
        #expect(outcomes.values.allSatisfy { $0 == .cancelled })
        // The gated requests that had started were dropped by the client.
        #expect(await eventually { (1...5).reduce(0) { $0 + fixture.server.clientCloseCount(path: "/gate/c\($1)/png") } == 2 })
    }

    @Test func cancelAllDownloadsFailsEveryLoad() async throws {
        let fixture = try Fixture { $0.maxConcurrentDownloads = 2 }
        defer { fixture.stop() }
        let tasks = (1...4).map { fixture.start("/gate/g\($0)/png") }
        #expect(await fixture.waitForStatus { $0.tokens == 4 && $0.runningTransfers == 2 })
        await fixture.loader.cancelAllDownloads()
        for task in tasks { #expect(await loadError { try await task.value }?.code == .cancelled) }
        #expect(await fixture.waitForStatus { $0 == .idle })
        // The loader keeps working afterwards.
        fixture.server.openGate("g1")
        #expect(try await fixture.load("/gate/g1/png").data == fixture.png)
    }

    /// The manager's shared work hands the loader a live priority (``ImageContext/loadPriority``):
    /// a queued transfer moves when it rises, and back when it falls.
    @Test func aLivePriorityMovesAQueuedTransfer() async throws {
        let fixture = try Fixture { $0.maxConcurrentDownloads = 1 }
        defer { fixture.stop() }
        let tasks = await enqueue(1...3, fixture)
        let handle = LoadPriorityHandle(.low)
        var context = ImageContext()
        context.loadPriority = handle
        let before = await fixture.loader.status().tokens
        let live = Task { [context] in
            try await fixture.loader.load(ImageRequest(url: fixture.server.url("/gate/g4/png")), options: [], context: context) { _ in }
        }
        _ = await fixture.waitForStatus { $0.tokens == before + 1 }
        let falling = LoadPriorityHandle(.high)
        var fallingContext = ImageContext()
        fallingContext.loadPriority = falling
        let demoted = Task { [fallingContext] in
            try await fixture.loader.load(ImageRequest(url: fixture.server.url("/gate/g5/png")), options: [], context: fallingContext) { _ in }
        }
        _ = await fixture.waitForStatus { $0.tokens == before + 2 }
        falling.update(.low)
        try await Task.sleep(for: .milliseconds(50))  // let the lowering reach the driver
        handle.update(.high)
        try await Task.sleep(for: .milliseconds(50))
        for number in 1...5 { fixture.server.openGate("g\(number)") }
        for task in tasks.values { _ = try await task.value }
        _ = try await live.value
        _ = try await demoted.value
        // g1 was running; g4 rose from low to high and jumps ahead; g5 fell from high to low.
        #expect(arrivalOrder(fixture.server) == [1, 4, 2, 3, 5])
    }
}
