/// How the manager retries a load that failed for a transient reason.
///
/// A load is retried only when its error ``ImageKernelError/isTransient`` (and is not a
/// cancellation), at most ``maxAttempts`` attempts in all and never past ``deadline``. Before
/// retry *n* (1-based) the manager waits a random time between zero and
/// `min(maxDelay, baseDelay × 2ⁿ⁻¹)` ("full jitter", so many clients refused at once do not come
/// back at once), and never less than the source's own hint (``ImageKernelError/retryAfter``,
/// HTTP `Retry-After`). A hint that would end past the deadline ends the retries instead.
/// Cancelling the load ends a waiting retry at once.
///
/// The policy comes from ``ImageContext/retryPolicy``, else ``ImageManager/Configuration/retryPolicy``
/// (``none`` by default); ``ImagePrefetcher`` uses ``standard`` unless told otherwise.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included; 1 means no retry.
    public var maxAttempts: Int
    /// The backoff before the first retry (its upper bound; full jitter picks below it).
    public var baseDelay: Duration
    /// The cap on one backoff (a source's `Retry-After` may ask for longer, up to the deadline).
    public var maxDelay: Duration
    /// The time from the first attempt after which no retry starts; nil for none.
    public var deadline: Duration?

    public init(maxAttempts: Int, baseDelay: Duration = .milliseconds(200), maxDelay: Duration = .seconds(10), deadline: Duration? = .seconds(60)) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(.zero, baseDelay)
        self.maxDelay = max(.zero, maxDelay)
        self.deadline = deadline
    }

    /// No retries: the default of ``ImageManager``.
    public static let none = RetryPolicy(maxAttempts: 1)
    /// Five attempts, 200 ms base, 10 s cap, 60 s deadline: the prefetcher's default.
    public static let standard = RetryPolicy(maxAttempts: 5)

    /// Whether this policy ever retries.
    public var retries: Bool { maxAttempts > 1 }

    /// The wait before retry `retry` (1-based) after `error`, or nil when no retry should happen:
    /// the error is permanent or a cancellation, the attempts are spent, or the wait would end
    /// past the deadline (`elapsed` is the time since the first attempt started).
    public func delay(
        beforeRetry retry: Int, after error: ImageKernelError, elapsed: Duration,
        random: (Duration) -> Duration = RetryPolicy.uniform
    ) -> Duration? {
        guard error.isTransient, error.code != .cancelled, retry >= 1, retry < maxAttempts else { return nil }
        let ceiling = min(maxDelay, baseDelay * (1 << min(retry - 1, 30)))
        var wait = random(ceiling)
        if let hint = error.retryAfter, hint > wait { wait = hint }
        if let deadline, elapsed + wait > deadline { return nil }
        return wait
    }

    /// A uniformly random duration in `0...upper`.
    public static func uniform(_ upper: Duration) -> Duration {
        guard upper > .zero else { return .zero }
        let nanoseconds = upper.components.seconds * 1_000_000_000 + upper.components.attoseconds / 1_000_000_000
        return .nanoseconds(Int64.random(in: 0...max(0, nanoseconds)))
    }
}
