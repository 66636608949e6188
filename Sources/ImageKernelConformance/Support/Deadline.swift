import Foundation
import ImageKernel

/// Runs work with a time limit, so a plugin that hangs fails its case instead of hanging the
/// suite. The limit guards against hangs only; it is never used to judge speed.
///
/// Work that overruns is abandoned (an async task is cancelled, a thread is left to finish on
/// its own): a hung plugin cannot be stopped from outside, but the report still arrives.
enum Deadline {
    /// The outcome of work run under a deadline.
    enum Outcome<T: Sendable>: Sendable {
        case finished(T)
        case threw(any Error)
        case timedOut
    }

    /// Runs `operation` in a new task; `.timedOut` if `limit` passes first.
    static func run<T: Sendable>(
        _ limit: Duration, _ operation: @escaping @Sendable () async throws -> T
    ) async -> Outcome<T> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Outcome<T>, Never>) in
            let first = FirstOutcome(continuation)
            let task = Task {
                do { first.finish(.finished(try await operation())) } catch { first.finish(.threw(error)) }
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds(limit)) {
                if first.finish(.timedOut) { task.cancel() }
            }
        }
    }

    /// Runs blocking `body` on a new thread (not the cooperative pool, which a hung plugin
    /// would starve); `.timedOut` if `limit` passes first.
    static func runOnThread<T: Sendable>(
        _ limit: Duration, _ body: @escaping @Sendable () throws -> T
    ) async -> Outcome<T> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Outcome<T>, Never>) in
            let first = FirstOutcome(continuation)
            let thread = Thread {
                do { first.finish(.finished(try body())) } catch { first.finish(.threw(error)) }
            }
            thread.stackSize = 8 << 20
            thread.start()
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds(limit)) {
                first.finish(.timedOut)
            }
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

/// Resumes a continuation with whichever outcome arrives first.
private final class FirstOutcome<T: Sendable>: Sendable {
    private let continuation: Locked<CheckedContinuation<Deadline.Outcome<T>, Never>?>

    init(_ continuation: CheckedContinuation<Deadline.Outcome<T>, Never>) {
        self.continuation = Locked(continuation)
    }

    /// Returns true when this outcome was the first.
    @discardableResult
    func finish(_ outcome: Deadline.Outcome<T>) -> Bool {
        let pending = continuation.withLock { stored in
            let pending = stored
            stored = nil
            return pending
        }
        pending?.resume(returning: outcome)
        return pending != nil
    }
}

extension CaseContext {
    /// Runs a blocking case body on its own thread under `limit`, turning a hang or a stray error
    /// into a failure of this case.
    func runBlocking(_ limit: Duration, _ body: @escaping @Sendable () throws(ConformanceFailure) -> Void) async throws(ConformanceFailure) {
        try rethrow(await Deadline.runOnThread(limit) { () throws in try body() }, limit: limit)
    }

    /// Runs an async case body in its own task under `limit`, turning a hang or a stray error into
    /// a failure of this case.
    func runAsync(_ limit: Duration, _ body: @escaping @Sendable () async throws(ConformanceFailure) -> Void) async throws(ConformanceFailure) {
        try rethrow(await Deadline.run(limit) { () async throws in try await body() }, limit: limit)
    }

    private func rethrow(_ outcome: Deadline.Outcome<Void>, limit: Duration) throws(ConformanceFailure) {
        switch outcome {
        case .finished:
            return
        case .threw(let error as ConformanceFailure):
            throw error
        case .threw(let error):
            throw failure("the case", "the case stopped with an unexpected error", underlying: SendableErrorBox(error))
        case .timedOut:
            throw failure("the case", "the case did not finish within \(Deadline.seconds(limit)) s (the plugin hangs)")
        }
    }
}
