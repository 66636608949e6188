import ImageKernel

/// One render in flight, shared by every request for its result: the request that started it runs
/// it on its own task (no task, and no thread hand-off, of its own), the others wait here.
final class RenderInFlight: Sendable {
    typealias Outcome = Result<(Rendered, String), ProxyError>

    private let state = Locked<(outcome: Outcome?, waiters: [CheckedContinuation<Outcome, Never>])>((nil, []))

    /// The render's outcome, once it has one.
    func outcome() async -> Outcome {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Outcome? in
                if let outcome = state.outcome { return outcome }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Gives every waiter, present and later, `outcome`.
    func finish(_ outcome: Outcome) {
        let waiters = state.withLock { state in
            state.outcome = outcome
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }
}
