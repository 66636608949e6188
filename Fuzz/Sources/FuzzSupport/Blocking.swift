import Foundation

/// Runs `body` in a task and returns once that task has finished and released everything it
/// captured, so libFuzzer's leak check after each input never sees a task still tearing down.
public func runBlocking(_ body: @escaping @Sendable () async -> Void) {
    let released = DispatchSemaphore(value: 0)
    Task { [sentinel = ReleaseSentinel(released)] in
        await body()
        sentinel.touch()
    }
    released.wait()
}

/// Signals its semaphore when it is deinitialised, which happens when the task that captured it
/// releases its closure context.
private final class ReleaseSentinel: Sendable {
    private let semaphore: DispatchSemaphore
    init(_ semaphore: DispatchSemaphore) { self.semaphore = semaphore }
    func touch() {}
    deinit { semaphore.signal() }
}
