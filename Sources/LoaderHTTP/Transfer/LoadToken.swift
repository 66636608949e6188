import ImageKernel

/// One caller's stake in a transfer: its continuation, its progress closure and its priority.
///
/// A transfer may carry many tokens (same-URL coalescing). Each token completes exactly once —
/// with the transfer's outcome, or with `cancelled` when its task is cancelled — and reports no
/// progress after it completed. Progress is reported without holding the lock, so a progress
/// closure may cancel its own task; the completion then waits until the closure returned.
final class LoadToken: Sendable {
    enum Priority: Int, Comparable, Sendable {
        case low = 0, normal = 1, high = 2
        static func < (a: Priority, b: Priority) -> Bool { a.rawValue < b.rawValue }

        init(_ priority: LoadPriority) {
            switch priority {
            case .low: self = .low
            case .normal: self = .normal
            case .high: self = .high
            }
        }
    }

    /// Resumed with the outcome itself, so the caller throws it typed.
    typealias Continuation = CheckedContinuation<Result<LoadResult, ImageKernelError>, Never>

    let id: UInt64
    let priority: Priority
    let wantsChunks: Bool
    private let progress: @Sendable (LoadProgress) -> Void
    private let state = Locked(State())

    private struct State {
        var continuation: Continuation?
        var outcome: Result<LoadResult, ImageKernelError>?
        var reporting = false
    }

    init(id: UInt64, priority: Priority, wantsChunks: Bool, progress: @escaping @Sendable (LoadProgress) -> Void) {
        self.id = id
        self.priority = priority
        self.wantsChunks = wantsChunks
        self.progress = progress
    }

    /// Stores the continuation. Returns false (after resuming it) when the token already completed,
    /// e.g. because the task was cancelled before the load was submitted.
    func install(_ continuation: Continuation) -> Bool {
        let early: Result<LoadResult, ImageKernelError>? = state.withLock { state in
            if let outcome = state.outcome { return outcome }
            state.continuation = continuation
            return nil
        }
        guard let early else { return true }
        continuation.resume(returning: early)
        return false
    }

    /// Whether the token completed (its caller is gone or answered).
    var isCompleted: Bool { state.withLock { $0.outcome != nil } }

    /// Completes the token; later calls do nothing.
    func complete(_ outcome: Result<LoadResult, ImageKernelError>) {
        let continuation: Continuation? = state.withLock { state in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            if state.reporting { return nil }  // the reporter resumes when its closure returns
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: outcome)
    }

    /// Reports progress unless the token completed.
    func report(_ value: LoadProgress) {
        let proceed = state.withLock { state in
            guard state.outcome == nil else { return false }
            state.reporting = true
            return true
        }
        guard proceed else { return }
        progress(value)
        let deferred: (Continuation, Result<LoadResult, ImageKernelError>)? = state.withLock { state in
            state.reporting = false
            guard let outcome = state.outcome, let continuation = state.continuation else { return nil }
            state.continuation = nil
            return (continuation, outcome)
        }
        if let (continuation, outcome) = deferred { continuation.resume(returning: outcome) }
    }
}
