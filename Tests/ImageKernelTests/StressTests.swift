import Foundation
import ImageKernel
import Testing

@Suite("Stress")
struct StressTests {
    @Test func tenThousandLoadsWithRandomCancellationsCompleteExactlyOnce() async throws {
        let loader = MemoryLoader(chunkSize: 16)
        for i in 0..<50 {
            loader.serve("s\(i)", data: RawCoder.data(width: 3, height: 3, seed: UInt8(i)), delay: i % 5 == 4 ? .milliseconds(30) : .microseconds(200 * (i % 5)))
        }
        let manager = makeManager(loader: loader)
        let storm = try await operationStorm(manager) { memURL("s\($0 % 50)") }
        await storm.expectExactlyOnce(manager)
    }

    /// The same storm on shared work (rule 9): few URLs and variants, so most callers join work
    /// that others started and cancel out of it at random, async callers and operations mixed.
    @Test func tenThousandCallersOnSharedWorkWithRandomCancellationsCompleteExactlyOnce() async throws {
        let loader = MemoryLoader(chunkSize: 16)
        for i in 0..<10 {
            // Loads that last a while, so the cancellers find work in flight on a loaded machine.
            loader.serve("w\(i)", data: RawCoder.data(width: 6, height: 6, seed: UInt8(i)), delay: .milliseconds(5 + 10 * (i % 4)))
        }
        let coder = RawCoder()
        let manager = makeManager(loader: loader, coder: coder)
        let total = 10_000
        let completions = Locked<[Int]>(Array(repeating: 0, count: total))
        let cancelReturned = Locked<[Bool]>(Array(repeating: false, count: total))
        let imageAfterCancel = Locked(0)
        let cancelled = Locked(0)
        let handles = Locked<[(@Sendable () -> Void)?]>(Array(repeating: nil, count: total))
        let registered = Locked(0)

        let record: @Sendable (Int, Result<ImageResult, ImageKernelError>) -> Void = { i, result in
            completions.withLock { $0[i] += 1 }
            switch result {
            case .success: if cancelReturned.withLock({ $0[i] }) { imageAfterCancel.withLock { $0 += 1 } }
            case .failure(let error): if error.code == .cancelled { cancelled.withLock { $0 += 1 } }
            }
        }

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskGroup(of: Void.self) { callers in
                    for i in 0..<total {
                        var context = ImageContext()
                        if i % 3 == 1 { context.thumbnailPixelSize = PixelSize(width: 3, height: 3) }
                        let options: ImageOptions = i % 5 == 0 ? .fromLoaderOnly : i % 7 == 0 ? .highPriority : []
                        let url = memURL("w\(i % 10)")
                        if i % 2 == 0 {
                            let op = manager.loadImage(with: url, options: options, context: context) { record(i, $0) }
                            handles.withLock { $0[i] = { op.cancel() } }
                        } else {
                            let task = Task {
                                do throws(ImageKernelError) {
                                    record(i, .success(try await manager.image(for: url, options: options, context: context)))
                                } catch {
                                    record(i, .failure(error))
                                }
                            }
                            handles.withLock { $0[i] = { task.cancel() } }
                            callers.addTask { await task.value }
                        }
                        registered.withLock { $0 = i + 1 }
                        if i % 64 == 0 { await Task.yield() }
                    }
                }
            }
            addRandomCancellers(to: &group, total: total, registered: registered) { i in
                if let cancel = handles.withLock({ $0[i] }) {
                    // Async callers may finish between the cancel and this mark; only
                    // operations promise "no image once cancel() returned".
                    cancel()
                    if i % 2 == 0 { cancelReturned.withLock { $0[i] = true } }
                }
            }
            try await group.waitForAll()
        }
        #expect(await eventually(.seconds(60)) { completions.withLock { $0.allSatisfy { $0 >= 1 } } })
        #expect(await eventually(.seconds(30)) { manager.runningCount == 0 }, "nothing left running")
        let counts = completions.withLock { $0 }
        #expect(counts.allSatisfy { $0 == 1 }, "every completion exactly once: \(counts.filter { $0 != 1 }.count) off")
        #expect(imageAfterCancel.value == 0, "no image after cancel")
        #expect(cancelled.value > 0, "some callers were really cancelled")
        #expect(loader.requestCount < total / 4, "callers shared loads: \(loader.requestCount) loads for \(total) callers")
        #expect(coder.decodeCount.value <= loader.requestCount * 2, "at most one decode per variant per load")
    }

    /// The storm with retries on: every load fails transiently twice before it succeeds, so
    /// cancellations land in loads and in backoffs alike, and shared work retries for its callers.
    @Test func tenThousandCancellableLoadsWithRetriesCompleteExactlyOnce() async throws {
        let loader = FlakyLoader(period: 3, delay: .microseconds(300))
        let manager = makeManager(flaky: loader, retryPolicy: quickRetries)
        let storm = try await operationStorm(manager) { flakyURL("r\($0 % 40)") }
        await storm.expectExactlyOnce(manager)
        // The loader fails twice before each success, so any image came through retries.
        #expect(storm.succeeded.value > 0, "some loads succeeded after retrying")
    }

    /// What a storm of operations recorded.
    struct Storm {
        let completions: Locked<[Int]>
        let imageAfterCancel: Locked<Int>
        let cancelled: Locked<Int>
        let succeeded: Locked<Int>

        /// Every operation completed exactly once, none with an image after its cancel returned,
        /// some really cancelled, and nothing is left running.
        func expectExactlyOnce(_ manager: ImageManager) async {
            #expect(await eventually(.seconds(120)) { completions.withLock { $0.allSatisfy { $0 >= 1 } } })
            #expect(await eventually(.seconds(30)) { manager.runningCount == 0 }, "nothing left running")
            let counts = completions.withLock { $0 }
            #expect(counts.allSatisfy { $0 == 1 }, "every completion exactly once: \(counts.filter { $0 != 1 }.count) off")
            #expect(imageAfterCancel.value == 0, "no image after cancel")
            #expect(cancelled.value > 0, "some loads were really cancelled")
        }
    }

    /// 10,000 operations (every other one `fromLoaderOnly`) while three workers cancel 6,000 at random.
    func operationStorm(_ manager: ImageManager, url: @escaping @Sendable (Int) -> URL) async throws -> Storm {
        let total = 10_000
        let storm = Storm(
            completions: Locked(Array(repeating: 0, count: total)), imageAfterCancel: Locked(0), cancelled: Locked(0), succeeded: Locked(0))
        let cancelReturned = Locked<[Bool]>(Array(repeating: false, count: total))
        let operations = Locked<[ImageOperation?]>(Array(repeating: nil, count: total))
        let registered = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for i in 0..<total {
                    let options: ImageOptions = i % 2 == 0 ? .fromLoaderOnly : []
                    let op = manager.loadImage(with: url(i), options: options) { result in
                        storm.completions.withLock { $0[i] += 1 }
                        switch result {
                        case .success:
                            storm.succeeded.withLock { $0 += 1 }
                            if cancelReturned.withLock({ $0[i] }) { storm.imageAfterCancel.withLock { $0 += 1 } }
                        case .failure(let error):
                            if error.code == .cancelled { storm.cancelled.withLock { $0 += 1 } }
                        }
                    }
                    operations.withLock { $0[i] = op }
                    registered.withLock { $0 = i + 1 }
                    if i % 64 == 0 { await Task.yield() }
                }
            }
            addRandomCancellers(to: &group, total: total, registered: registered) { i in
                if let op = operations.withLock({ $0[i] }) {
                    op.cancel()
                    cancelReturned.withLock { $0[i] = true }
                }
            }
            try await group.waitForAll()
        }
        return storm
    }

    /// Three workers that each cancel 2,000 callers picked at random among `total` (`cancel` finds
    /// nothing to cancel for a caller not started yet).
    /// Three workers that cancel 6,000 callers: half the time one of the 256 newest (`registered`
    /// counts the callers started so far; their work is likely still running, even when a loaded
    /// machine lets the callers run far ahead of the cancellers), otherwise anyone.
    func addRandomCancellers(
        to group: inout ThrowingTaskGroup<Void, any Error>, total: Int, registered: Locked<Int>, cancel: @escaping @Sendable (Int) -> Void
    ) {
        for worker in 0..<3 {
            group.addTask {
                var generator = SystemRandomNumberGenerator()
                for _ in 0..<2_000 {
                    let newest = registered.withLock { $0 }
                    let recent = newest > 0 && Bool.random(using: &generator)
                    cancel(recent ? Int.random(in: max(0, newest - 256)..<newest, using: &generator) : Int.random(in: 0..<total, using: &generator))
                    if worker == 0 { await Task.yield() }
                }
            }
        }
    }
}
