/// Runs `attempt` until it succeeds, fails for good, or `policy` gives up (see ``RetryPolicy``).
///
/// Between attempts it calls `willRetry` (attempt number that failed, the wait, the error) and
/// sleeps; cancelling the task ends the sleep at once with ``ImageKernelError/Code/cancelled``.
/// A failure that is not retried is thrown as it is.
func retrying<Value>(
    _ policy: RetryPolicy, clock: ContinuousClock = ContinuousClock(),
    willRetry: (_ attempt: Int, _ delay: Duration, _ error: ImageKernelError) -> Void,
    attempt body: () async throws(ImageKernelError) -> Value
) async throws(ImageKernelError) -> Value {
    let start = clock.now
    var attempt = 1
    while true {
        do {
            return try await body()
        } catch {
            guard !Task.isCancelled, let delay = policy.delay(beforeRetry: attempt, after: error, elapsed: clock.now - start) else {
                throw error
            }
            willRetry(attempt, delay, error)
            do {
                try await Task.sleep(for: delay, clock: clock)
            } catch {
                throw .cancelled(.load)
            }
            attempt += 1
        }
    }
}
