import Foundation
import ImageKernel

/// Records the progress calls of one load and whether any arrived after the load finished.
final class ProgressRecorder: Sendable {
    private struct State {
        var events: [LoadProgress] = []
        var finished = false
        var lateCalls = 0
    }
    private let state = Locked(State())

    /// The closure to hand to the loader.
    var callback: @Sendable (LoadProgress) -> Void {
        { [self] progress in record(progress) }
    }

    func record(_ progress: LoadProgress) {
        state.withLock { state in
            state.events.append(progress)
            if state.finished { state.lateCalls += 1 }
        }
    }

    /// Called once `load` has returned or thrown.
    func markFinished() { state.withLock { $0.finished = true } }

    var events: [LoadProgress] { state.withLock { $0.events } }
    var lateCalls: Int { state.withLock { $0.lateCalls } }
}

/// Cancels a task from inside its first progress callback, whichever of the two — the task's
/// creation or the first progress call — happens first.
final class CancelOnFirstProgress: Sendable {
    private struct State {
        var task: Task<LoadResult, any Error>?
        var fired = false
    }
    private let state = Locked(State())

    func fire() {
        let task = state.withLock { state -> Task<LoadResult, any Error>? in
            state.fired = true
            return state.task
        }
        task?.cancel()
    }

    func attach(_ task: Task<LoadResult, any Error>) {
        let fired = state.withLock { state -> Bool in
            state.task = task
            return state.fired
        }
        if fired { task.cancel() }
    }

    var fired: Bool { state.withLock { $0.fired } }
}

extension Error {
    /// Whether this is the cancellation error the contracts ask for: ``ImageKernelError`` with
    /// code `cancelled` (the protocols throw nothing else).
    var isCancellation: Bool {
        (self as? ImageKernelError)?.code == .cancelled
    }
}
