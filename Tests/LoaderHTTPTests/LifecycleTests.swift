import Foundation
import ImageKernelTestSupport
import ImageKernel
import LoaderHTTP
import Testing

@Suite struct LifecycleTests {
    @Test func shutdownFailsWaitingLoadsAndRefusesLaterOnes() async throws {
        let fixture = try Fixture()
        defer { fixture.server.stop() }
        let waiting = fixture.start("/gate/closed/png")
        #expect(await fixture.waitForStatus { $0.runningTransfers == 1 })
        fixture.loader.shutdown()
        #expect(await loadError { try await waiting.value }?.code == .cancelled)
        #expect(await loadError { try await fixture.load("/files/png") }?.code == .cancelled)
        #expect(await fixture.loader.status() == .idle)
        fixture.loader.shutdown()  // idempotent
    }

    @Test func aTaskCancelledBeforeLoadingNeverReachesTheServer() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await fixture.load("/files/png")
        }
        #expect(await loadError { try await task.value }?.code == .cancelled)
        #expect(await fixture.loader.status() == .idle)
        #expect(fixture.server.requests.isEmpty)
    }

    @Test func aProgressCallbackMayCancelItsOwnLoad() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let handle = Collector<Task<LoadResult, any Error>>()
        let reports = Collector<Int64>()
        let task = Task {
            try await fixture.load("/files/jpeg?chunk=500&pace=5") { progress in
                reports.append(progress.received)
                // Runs the task's cancellation handler right here, inside the progress callback.
                handle.values.first?.cancel()
            }
        }
        handle.append(task)
        #expect(await loadError { try await task.value }?.code == .cancelled)
        #expect(await fixture.waitForStatus { $0 == .idle })
    }

    @Test func noProgressArrivesAfterTheLoadCompleted() async throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let finished = Collector<Bool>()
        let late = Collector<Int64>()
        let task = Task {
            // About 3 s of body (114 pieces, 30 ms apart), so even a slow, loaded machine sees
            // the transfer running before it ends; the test cancels it as soon as it does.
            try await fixture.load("/files/jpeg?chunk=50&pace=30") { progress in
                if finished.values.contains(true) { late.append(progress.received) }
            }
        }
        #expect(await fixture.waitForStatus { $0.runningTransfers == 1 })
        task.cancel()
        _ = await loadError { try await task.value }
        finished.append(true)
        try await Task.sleep(for: .milliseconds(100))
        #expect(late.values.isEmpty)
    }

    @Test func nothingKeepsADroppedLoaderAlive() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.addFile("png", data: Data(repeating: 1, count: 100))
        weak var weakLoader: HTTPLoader?
        do {
            let loader = try HTTPLoader()
            weakLoader = loader
            _ = try await loader.load(ImageRequest(url: server.url("/files/png")), options: [], context: ImageContext(), progress: { _ in })
        }
        // The driver thread and the callbacks hold no reference to the loader, so deinit runs
        // (and stops the thread) as soon as the caller lets go.
        #expect(weakLoader == nil)
        #expect(server.requestCount(path: "/files/png") == 1)
    }
}
